import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { digestApiToken } from '../../domain/tokens.js';
import { TOKEN_FIELD, TOKEN_HEADER } from '../../http/authenticate.js';
import { accountOf, type AppState, type RouteContext } from '../../http/context.js';
import type { LiveEventStreams } from '../../http/live-events.js';
import type { Store } from '../../store/store.js';
import { findCompany } from '../lookup.js';

/**
 * `GET /api/p2/companies/:companyId/events/stream`: the company's v2 events as Server-Sent Events
 * (src/http/live-events.ts), from the company event log. `Last-Event-ID` resumes right after that
 * event; an id not kept is a 409. The stream ends when the token no longer reaches the company.
 */
export function eventStreamRoutes(
  router: Router<AppState>,
  store: Store,
  auth: Middleware<AppState>,
  streams: LiveEventStreams,
): void {
  router.get('/api/p2/companies/:companyId/events/stream', auth, (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const account = accountOf(ctx);
    // The stream outlives the request: a token revoked since, or the company deleted, ends it.
    const token = tokenOf(ctx);
    const digest = token === undefined ? undefined : digestApiToken(token);
    streams.serve(ctx, {
      accountId: account.id,
      companyId: company.id,
      lastEventId: ctx.get('Last-Event-ID'),
      stillAllowed: () =>
        store.companies.find(account.id, company.id) !== undefined &&
        (digest === undefined || store.accounts.authenticate(digest)?.account.id === account.id),
    });
  });
}

/** The API token the request authenticated with, from its header or query (a GET has no body). */
function tokenOf(ctx: RouteContext): string | undefined {
  const query = ctx.query[TOKEN_FIELD];
  const first: unknown = Array.isArray(query) ? query[0] : query;
  return ctx.get(TOKEN_HEADER) || (typeof first === 'string' ? first : undefined);
}
