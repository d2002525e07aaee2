import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { providerCatalog } from '../../../schemas/v2/providers.js';
import type { AppState } from '../../http/context.js';

/**
 * The provider capability catalog: what each provider supports and what the gateway carries of it,
 * from the table the API enforces (schemas/provider-capabilities.ts). The same for every account.
 */
export function providerRoutes(router: Router<AppState>, auth: Middleware<AppState>): void {
  const answer = { providers: providerCatalog() };
  router.get('/api/p2/providers', auth, (ctx) => {
    ctx.body = answer;
  });
}
