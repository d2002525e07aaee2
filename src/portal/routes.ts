import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { digestApiToken } from '../domain/tokens.js';
import { Unauthorized, ValidationFailed } from '../errors/errors.js';
import { parseBody, type BodyLimits } from '../http/body.js';
import type { AppState } from '../http/context.js';
import { AssetFolder, webDir } from '../http/web-assets.js';
import {
  endSession,
  hasSessionCookie,
  openSession,
  presentSession,
  requireSameOriginJson,
  sessionAuth,
} from '../http/web-session.js';
import type { Replayer } from '../dispatch/replay.js';
import type { Store } from '../store/store.js';
import { portalEventLogRoutes } from './event-log.js';
import { portalLinkRoutes } from './links.js';
import { portalPolicy, sessionCompany } from './session.js';
import { portalWebhookRoutes } from './webhooks.js';
import type { Metrics } from '../metrics/metrics.js';
import type { SsrfGuard } from '../net/ssrf.js';
import type { LiveEventStreams } from '../http/live-events.js';

export interface PortalDeps {
  store: Store;
  /** The REST API's token check, for the route that makes portal links. */
  apiAuth: Middleware<AppState>;
  publicUrl: string;
  secureCookies: boolean;
  /** The origin of GATEWAY_PUBLIC_URL when set: the one a link's exchange must come from. */
  publicOrigin?: string | null;
  bodyLimits: BodyLimits;
  replayer: Replayer | null;
  /** The daemon's metrics: endpoint state changes made in the portal are counted. */
  metrics?: Metrics;
  /** The private-address guard: an endpoint's URL is checked against it when set. */
  guard: SsrfGuard;
  /** The live event streams, which the portal's live page reads with its session. */
  liveStreams: LiveEventStreams;
}

/**
 * The company portal (docs/console.md): a link made with the company's API token opens a session
 * scoped to that company alone; its pages manage the company's webhook endpoints and read and
 * replay its deliveries through /portal/api, which takes the company from the session only.
 * `router` is the JSON API's router (the link route); `webRouter` holds the portal itself.
 */
export function portalRoutes(router: Router<AppState>, webRouter: Router<AppState>, deps: PortalDeps): void {
  const { store } = deps;
  const policy = portalPolicy(deps.secureCookies);
  const session = sessionAuth(store, policy);
  const body = parseBody(deps.bodyLimits);
  const pages = new AssetFolder(webDir('portal'));

  portalLinkRoutes(router, { store, auth: deps.apiAuth, publicUrl: deps.publicUrl });

  // The shell: a browser without a live session goes to the entry page, which asks for a new link.
  webRouter.get('/portal', async (ctx, next) => {
    try {
      if (!hasSessionCookie(ctx, policy)) throw new Unauthorized('no session');
      await session(ctx, async () => {});
      sessionCompany(store, ctx);
    } catch (error) {
      if (!(error instanceof Unauthorized)) throw error;
      ctx.redirect('/portal/enter');
      ctx.status = 303;
      return;
    }
    await pages.serve('index.html')(ctx, next);
  });
  // Public: the entry page (it holds no data; the link's token is in its fragment) and the assets.
  webRouter.get('/portal/enter', pages.serve('enter.html'));
  webRouter.get('/portal/assets/:file', pages.serve());

  // Exchanges a link's token, once, for a session of its company.
  webRouter.post('/portal/session', body, (ctx) => {
    requireSameOriginJson(ctx, deps.publicOrigin ?? null);
    const token = (ctx.request.body as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string' || token === '' || token.length > 200)
      throw ValidationFailed.field('token', 'token must be the token of a portal link');
    const now = Date.now();
    const link = store.transaction(() => store.webSessions.usePortalLink(digestApiToken(token), now));
    if (link === undefined)
      throw new Unauthorized('This portal link is unknown, used already or expired: ask for a new one.');
    const company = store.companies.find(link.account_id, link.company_id);
    if (company === undefined) throw new Unauthorized('The company of this portal link no longer exists.');
    ctx.status = 201;
    ctx.body = {
      session: openSession(
        ctx,
        store,
        policy,
        { accountId: link.account_id, companyId: company.id, credentialSha256: null },
        now,
      ),
      company: { id: company.id, name: company.name },
    };
    ctx.state.log.info({ company_id: company.id }, 'portal session opened');
  });

  webRouter.get('/portal/session', session, (ctx) => {
    const company = sessionCompany(store, ctx);
    ctx.body = { session: presentSession(ctx), company: { id: company.id, name: company.name } };
  });

  webRouter.delete('/portal/session', session, (ctx) => {
    endSession(ctx, store, policy);
    ctx.body = { session: null };
  });

  const api = { store, session, body, replayer: deps.replayer, metrics: deps.metrics, guard: deps.guard };
  portalWebhookRoutes(webRouter, api);
  portalEventLogRoutes(webRouter, api);

  // The company's events live, for the portal's live page: the API's stream, by the session.
  webRouter.get('/portal/api/events/stream', session, (ctx) => {
    const company = sessionCompany(store, ctx);
    const sessionDigest = digestApiToken(ctx.state.sessionToken!);
    deps.liveStreams.serve(ctx, {
      accountId: company.account_id,
      companyId: company.id,
      lastEventId: ctx.get('Last-Event-ID'),
      // A session ended (logged out, expired) or a company deleted ends the stream.
      stillAllowed: () =>
        store.webSessions.findSession(sessionDigest, 'portal', Date.now()) !== undefined &&
        store.companies.find(company.account_id, company.id) !== undefined,
    });
  });
}
