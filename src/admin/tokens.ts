import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { adminTokenListQuery } from '../../schemas/admin/tokens.js';
import { NotFound } from '../errors/errors.js';
import type { AppState } from '../http/context.js';
import { pathId } from '../http/params.js';
import { parseQuery } from '../http/query.js';
import { validator } from '../http/validate.js';
import { presentApiToken } from '../presenters/admin.js';
import { revokeToken } from '../domain/directory.js';
import type { Store } from '../store/store.js';

const validateListQuery = validator(adminTokenListQuery);

/**
 * The accounts' API tokens (docs/admin.md): listed with their prefix, creation, last use (at most a
 * minute stale) and revocation, never the token; and revoked, which takes effect on the next
 * request (the API reads tokens from the store on each one). `gateway token list` and
 * `gateway token revoke` do the same on the store directly.
 */
export function adminTokenRoutes(
  router: Router<AppState>,
  { store, auth, now }: { store: Store; auth: Middleware<AppState>; now: () => number },
): void {
  router.get('/admin/tokens', auth, (ctx) => {
    const query = validateListQuery(parseQuery(ctx.querystring), 'text');
    ctx.body = { tokens: store.accounts.listTokens(query.account_id).map(presentApiToken) };
  });

  router.post('/admin/tokens/:tokenId/revoke', auth, (ctx) => {
    const id = pathId(ctx.params.tokenId, 'API token');
    const revoked = store.transaction(() => revokeToken(store, id, now()));
    if (revoked === undefined) throw new NotFound(`API token ${id} was not found.`);
    ctx.state.log.info({ token_id: id, account_id: revoked.account_id }, 'API token revoked');
    ctx.body = { token: presentApiToken(revoked) };
  });
}
