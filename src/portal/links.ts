import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { digestApiToken } from '../domain/tokens.js';
import { NotFound } from '../errors/errors.js';
import { accountOf, answersSecret, type AppState } from '../http/context.js';
import { pathId } from '../http/params.js';
import type { Store } from '../store/store.js';
import { PORTAL_LINK_TTL_MS } from './session.js';

/**
 * POST /api/p2/companies/<id>/portal_sessions (API token): a single-use link into the company's
 * portal, valid for PORTAL_LINK_TTL_MS. The token travels in the link's fragment (#...), which a
 * browser never sends to a server: it stays out of request logs, proxies and Referer headers, and
 * a link previewer that fetches the URL cannot use it up. The page posts it to open the session.
 */
export function portalLinkRoutes(
  router: Router<AppState>,
  deps: { store: Store; auth: Middleware<AppState>; publicUrl: string },
): void {
  const { store } = deps;
  router.post('/api/p2/companies/:companyId/portal_sessions', deps.auth, (ctx) => {
    const account = accountOf(ctx);
    const companyId = pathId(ctx.params.companyId, 'Company');
    const company = store.companies.find(account.id, companyId);
    if (company === undefined) throw new NotFound(`Company ${companyId} was not found.`);
    const token = `gwp_${randomBytes(32).toString('base64url')}`;
    const now = Date.now();
    const expiresAt = now + PORTAL_LINK_TTL_MS;
    store.transaction(() =>
      store.webSessions.createPortalLink(
        { tokenSha256: digestApiToken(token), accountId: account.id, companyId: company.id, expiresAt },
        now,
      ),
    );
    ctx.status = 201;
    answersSecret(ctx);
    ctx.body = {
      portal_session: {
        company_id: company.id,
        url: `${deps.publicUrl.replace(/\/$/, '')}/portal/enter#${token}`,
        expires_at: new Date(expiresAt).toISOString(),
      },
    };
  });
}
