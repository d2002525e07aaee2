import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { randomBytes } from 'node:crypto';
import { keyedDigest, sameSecret } from '../domain/tokens.js';
import { Unauthorized, ValidationFailed } from '../errors/errors.js';
import { parseBody, type BodyLimits } from '../http/body.js';
import type { AuthThrottle } from '../http/auth-throttle.js';
import type { AppState } from '../http/context.js';
import { AssetFolder, webDir } from '../http/web-assets.js';
import {
  endSession,
  hasSessionCookie,
  openSession,
  presentSession,
  requireSameOriginJson,
  sessionAuth,
  type SessionPolicy,
} from '../http/web-session.js';
import type { Store } from '../store/store.js';

export interface ConsoleDeps {
  store: Store;
  adminToken: string;
  /** Cookies get the Secure flag when the daemon is reached over https. */
  secureCookies: boolean;
  /** The origin of GATEWAY_PUBLIC_URL when set: the one the login must come from. */
  publicOrigin?: string | null;
  bodyLimits: BodyLimits;
  /**
   * Counts and slows wrong admin tokens, shared with the admin API and /metrics: the admin token may
   * be a phrase an operator chose, so guessing it must stay slow wherever it is taken.
   */
  throttle: AuthThrottle;
}

/** Console sessions: 30 minutes without use end one, and none lives longer than 12 hours. */
export const CONSOLE_SESSION = {
  face: 'console',
  cookieName: 'gw_console',
  cookiePath: '/',
  idleMs: 30 * 60_000,
  maxMs: 12 * 3_600_000,
} as const;

/** Answers 204 for a live console session (with the CSRF token an unsafe method needs), else the session's 401 or 403. */
export const SESSION_CHECK_PATH = '/console/session/check';

/**
 * The operator console (docs/console.md): its pages and the session that opens them. Logging in
 * exchanges the admin token for a session cookie; the pages then call the admin API (/admin/...)
 * with that cookie and the session's CSRF token. Answers the session check the admin API accepts.
 */
export function consoleRoutes(router: Router<AppState>, deps: ConsoleDeps): Middleware<AppState> {
  const { store } = deps;
  const policy: SessionPolicy = { ...CONSOLE_SESSION, secure: deps.secureCookies };
  // What a console session records of the admin token it was opened with: an HMAC under a key of
  // this process, never stored, so the sessions table holds nothing to guess the token from offline.
  // A changed token, or a restart, ends every console session.
  const credential = keyedDigest(deps.adminToken, randomBytes(32));
  const session = sessionAuth(store, policy, credential);
  const body = parseBody(deps.bodyLimits);
  const pages = new AssetFolder(webDir('console'));

  // The shell: a browser without a live session is sent to the login page instead.
  router.get('/console', async (ctx, next) => {
    try {
      if (!hasSessionCookie(ctx, policy)) throw new Unauthorized('no session');
      await session(ctx, async () => {});
    } catch (error) {
      if (!(error instanceof Unauthorized)) throw error;
      ctx.redirect('/console/login');
      ctx.status = 303;
      return;
    }
    await pages.serve('index.html')(ctx, next);
  });
  // Public: the login form, and the code and styles of the pages (no data in them).
  router.get('/console/login', pages.serve('login.html'));
  router.get('/console/assets/:file', pages.serve());

  router.post('/console/session', body, async (ctx) => {
    requireSameOriginJson(ctx, deps.publicOrigin ?? null);
    const token = (ctx.request.body as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string' || token === '')
      throw ValidationFailed.field('token', 'token must be the admin token (GATEWAY_ADMIN_TOKEN)');
    await deps.throttle.admit(ctx, 'console');
    if (!sameSecret(token, deps.adminToken)) {
      await deps.throttle.failed(ctx, 'console');
      ctx.state.log.warn({ ip: ctx.ip }, 'console login with a wrong admin token');
      throw new Unauthorized('The admin token is invalid.');
    }
    await deps.throttle.succeeded(ctx);
    ctx.status = 201;
    ctx.body = {
      session: openSession(ctx, store, policy, { accountId: null, companyId: null, credentialSha256: credential }),
    };
    ctx.state.log.info('console session opened');
  });

  router.get('/console/session', session, (ctx) => {
    ctx.body = { session: presentSession(ctx) };
  });

  // A front of a cluster asks here, at the shard that keeps the session, before it sends a console
  // request to the admin API of any shard with the admin token instead (src/front/console-auth.ts).
  // The methods of the admin API: the check asks for the CSRF token exactly when the request it vouches for must carry it.
  const vouched = (ctx: { status: number }) => {
    ctx.status = 204;
  };
  router.get(SESSION_CHECK_PATH, session, vouched);
  router.post(SESSION_CHECK_PATH, session, vouched);
  router.put(SESSION_CHECK_PATH, session, vouched);
  router.patch(SESSION_CHECK_PATH, session, vouched);
  router.delete(SESSION_CHECK_PATH, session, vouched);

  router.delete('/console/session', session, (ctx) => {
    endSession(ctx, store, policy);
    ctx.body = { session: null };
  });

  return session;
}
