import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { EVENT_CATALOG } from '../../../schemas/events/catalog.js';
import type { AppState } from '../../http/context.js';

/**
 * The event catalog: every event type the gateway sends to webhook endpoints, with the JSON Schema
 * of its body and an example. The same for every account, built once from schemas/events.
 */
export function eventTypeRoutes(router: Router<AppState>, auth: Middleware<AppState>): void {
  const answer = { event_types: EVENT_CATALOG };
  router.get('/api/p2/event_types', auth, (ctx) => {
    ctx.body = answer;
  });
}
