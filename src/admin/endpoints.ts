import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { adminEndpointDisableBody } from '../../schemas/admin/deliveries.js';
import { NotFound } from '../errors/errors.js';
import type { AppState, RouteContext } from '../http/context.js';
import { pathId } from '../http/params.js';
import { validator } from '../http/validate.js';
import type { Metrics } from '../metrics/metrics.js';
import { presentAdminEndpoint } from '../presenters/admin.js';
import type { EndpointHealthRow } from '../store/deliveries/delivery-search.js';
import type { Store } from '../store/store.js';
import type { WebhookEndpointRow, WebhookEndpointChanges } from '../store/resources/webhooks.js';
import { changeWebhookEndpoint } from '../domain/operational-events.js';

const validateDisable = validator(adminEndpointDisableBody);

/** The last_error of a held delivery an operator discarded (it stays, failed and replayable, until the retention ends). */
export const HELD_DISCARDED = 'discarded by an operator while held';

interface EndpointRouteDeps {
  store: Store;
  auth: Middleware<AppState>;
  body: Middleware<AppState>;
  metrics: Metrics | undefined;
  now: () => number;
}

/**
 * Endpoint health per company (with its delivery options and held deliveries), an operator's
 * disable and re-enable, the discard of held deliveries, and the pipeline's state:
 * the relay's outbox lag, the streams' lag, and the attempts of the last hour per minute.
 */
export function endpointRoutes(router: Router<AppState>, { store, auth, body, metrics, now }: EndpointRouteDeps): void {
  const base = '/admin/companies/:companyId/endpoints';
  // A change of `active` writes webhook.disabled or webhook.enabled in the same transaction.
  const change = (endpoint: WebhookEndpointRow, changes: WebhookEndpointChanges) => {
    const { stateChange } = store.transaction(() => changeWebhookEndpoint(store, endpoint, changes, 'admin', now()));
    if (stateChange !== null) metrics?.endpointStateChanged(stateChange.state, stateChange.by);
  };

  router.get(base, auth, (ctx) => {
    const companyId = pathId(ctx.params.companyId, 'company');
    requireKnownCompany(store, companyId);
    ctx.body = { endpoints: store.deliverySearch.endpointHealth(companyId).map(presentAdminEndpoint) };
  });

  router.post(`${base}/:endpointId/disable`, auth, body, (ctx) => {
    const endpoint = findEndpoint(store, ctx);
    const { reason } = validateDisable(ctx.request.body ?? {}, ctx.is('json') ? 'json' : 'text');
    change(endpoint, { active: false, disabledReason: reason });
    ctx.body = { endpoint: healthOf(store, endpoint) };
  });

  router.post(`${base}/:endpointId/enable`, auth, (ctx) => {
    const endpoint = findEndpoint(store, ctx);
    change(endpoint, { active: true });
    ctx.body = { endpoint: healthOf(store, endpoint) };
  });

  // Held deliveries are let out by the core when the endpoint is enabled; this drops them instead.
  router.post(`${base}/:endpointId/held/discard`, auth, (ctx) => {
    const endpoint = findEndpoint(store, ctx);
    const discarded = store.transaction(() => store.held.failAll(endpoint.id, HELD_DISCARDED, now()));
    ctx.body = { endpoint: healthOf(store, endpoint), discarded };
  });

  router.get('/admin/pipeline', auth, async (ctx) => {
    const lag = store.outbox.lag();
    const at = now();
    const minutes = metrics?.attemptsLastHour() ?? [];
    const lastMinute = minutes.at(-2);
    const attempted = minutes.reduce((sum, m) => sum + m.delivered + m.failed, 0);
    const failed = minutes.reduce((sum, m) => sum + m.failed, 0);
    ctx.body = {
      outbox: {
        pending: lag.pending,
        oldest_created_at: lag.oldestCreatedAt === null ? null : new Date(lag.oldestCreatedAt).toISOString(),
        lag_ms: lag.oldestCreatedAt === null ? 0 : Math.max(0, at - lag.oldestCreatedAt),
      },
      streams: (await (metrics?.streamLag() ?? Promise.resolve([])).catch(() => [])).map((row) => ({
        stream: row.stream,
        group: row.group,
        messages: row.messages,
      })),
      attempts: {
        // The last whole minute: the current one is still counting.
        delivered_per_second: lastMinute === undefined ? 0 : Math.round((lastMinute.delivered / 60) * 100) / 100,
        error_rate: attempted === 0 ? null : Math.round((failed / attempted) * 10_000) / 10_000,
        per_minute: minutes.map((m) => ({
          start: new Date(m.start).toISOString(),
          delivered: m.delivered,
          failed: m.failed,
        })),
      },
    };
  });
}

function findEndpoint(store: Store, ctx: RouteContext): WebhookEndpointRow {
  const companyId = pathId(ctx.params.companyId, 'Company');
  const endpointId = pathId(ctx.params.endpointId, 'Webhook endpoint');
  const endpoint = store.webhooks.find(companyId, endpointId);
  if (endpoint === undefined)
    throw new NotFound(`Webhook endpoint ${endpointId} of company ${companyId} was not found.`);
  return endpoint;
}

function healthOf(store: Store, endpoint: WebhookEndpointRow): ReturnType<typeof presentAdminEndpoint> {
  const row: EndpointHealthRow = store.deliverySearch
    .endpointHealth(endpoint.company_id)
    .find((e) => e.id === endpoint.id)!;
  return presentAdminEndpoint(row);
}

/** A company named by an admin path or filter must exist (in any account): 404 otherwise. */
export function requireKnownCompany(store: Store, companyId: number | undefined): void {
  if (companyId !== undefined && !store.companies.exists(companyId))
    throw new NotFound(`company ${companyId} was not found.`);
}
