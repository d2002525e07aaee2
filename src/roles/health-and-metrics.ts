import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { authenticateAdmin } from '../admin/authenticate-admin.js';
import type { Config } from '../config/config.js';
import type { AuthThrottle } from '../http/auth-throttle.js';
import type { AppState } from '../http/context.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Store } from '../store/store.js';
import type { StreamClientHealth } from '../streams/stream.js';

/**
 * The Kafka clients of /healthz: each one being recreated (which, for how long, why) and the count
 * of clients closed and replaced since the start. The answer stays 200 while one is recreated: the
 * process heals itself, and a restart by an orchestrator would only add a second interruption.
 */
export function kafkaClients(health: StreamClientHealth) {
  const now = Date.now();
  return {
    recovering: health.recovering.map((r) => ({
      client: r.client,
      name: r.name,
      reason: r.reason,
      for_ms: Math.max(0, now - r.since),
    })),
    recreated: health.recreated,
  };
}

/** Relay lag: outbox rows not yet published to their stream, and how old the oldest is. */
function outboxLag(store: Store): { pending: number; oldest_pending_age_ms: number | null } {
  const { pending, oldestCreatedAt } = store.outbox.lag();
  return {
    pending,
    oldest_pending_age_ms: oldestCreatedAt === null ? null : Math.max(0, Date.now() - oldestCreatedAt),
  };
}

/**
 * Prometheus metrics: behind GATEWAY_METRICS_TOKEN, else the admin token, else open like /healthz.
 * Wrong tokens are counted and slowed by the process's throttle, with the admin API's and the console's.
 */
export function metricsAuth(
  config: Pick<Config, 'metricsToken' | 'adminToken'>,
  throttle: AuthThrottle,
): Middleware<AppState>[] {
  if (config.metricsToken !== null)
    return [
      authenticateAdmin(config.metricsToken, {
        setting: 'GATEWAY_METRICS_TOKEN',
        what: 'metrics token',
        throttle,
        face: 'metrics',
      }),
    ];
  return config.adminToken !== null ? [authenticateAdmin(config.adminToken, { throttle, face: 'metrics' })] : [];
}

/**
 * The core's (or all-in-one's) GET /healthz: the store's health, the relay lag and, in Kafka mode,
 * the stream clients; 503 when the store is not ok. And GET /metrics behind metricsAuth.
 */
export function healthAndMetricsRoutes(
  router: Router<AppState>,
  {
    store,
    config,
    throttle,
    metrics,
    streamClients,
  }: {
    store: Store;
    config: Pick<Config, 'metricsToken' | 'adminToken'>;
    throttle: AuthThrottle;
    metrics: Metrics;
    streamClients: (() => StreamClientHealth) | undefined;
  },
): void {
  router.get('/healthz', (ctx) => {
    const { error, ...health } = store.health();
    // The store's own error text stays in the log: the health answer is public.
    if (error !== undefined) ctx.state.log.error({ error }, 'store health check failed');
    ctx.status = health.status === 'ok' ? 200 : 503;
    ctx.body = {
      status: health.status,
      store: health,
      outbox: health.status === 'ok' ? outboxLag(store) : null,
      ...(streamClients === undefined ? {} : { kafka_clients: kafkaClients(streamClients()) }),
    };
  });

  router.get('/metrics', ...metricsAuth(config, throttle), async (ctx) => {
    const { contentType, text } = await metrics.scrape();
    ctx.type = contentType;
    ctx.body = text;
  });
}
