import Router from '@koa/router';
import Koa from 'koa';
import { channelRoutes } from '../api/v1/channels.js';
import { companyRoutes } from '../api/v1/companies.js';
import { authRoutes } from '../api/v2/auths.js';
import { webhookRoutes } from '../api/v2/webhooks.js';
import { attachmentRoutes } from '../api/v2/attachments.js';
import { conversationRoutes } from '../api/v2/conversations.js';
import { messageRoutes } from '../api/v2/messages.js';
import { templateRoutes } from '../api/v2/templates.js';
import { adminRoutes } from '../admin/routes.js';
import { adminCallbackRoutes } from '../admin/callbacks.js';
import { adminConnectorRoutes } from '../admin/connectors.js';
import { callbackRoutes } from '../callbacks/routes.js';
import type { Config } from '../config/config.js';
import type { Connectors } from '../connectors/registry.js';
import { ConnectionFlows } from '../connectors/flows.js';
import type { ChannelThrottle } from '../connectors/throttle.js';
import type { Replayer } from '../dispatch/replay.js';
import type { Logger } from '../log.js';
import { buildOpenApi } from '../openapi/document.js';
import { OPERATIONS } from '../openapi/operations.js';
import { packageVersion } from '../openapi/version.js';
import type { Store } from '../store/store.js';
import { authenticateAdmin } from '../admin/authenticate-admin.js';
import { Metrics } from '../metrics/metrics.js';
import { authenticate } from '../http/authenticate.js';
import { parseBody } from '../http/body.js';
import type { AppState } from '../http/context.js';
import { renderErrors } from '../http/render-errors.js';
import { requestLog } from '../http/request-log.js';
import { traceRequests } from '../http/trace-requests.js';
import { isTracing } from '../tracing/tracer.js';

export interface AppDeps {
  store: Store;
  logger: Logger;
  config: Config;
  /** Manual replays of the admin API; null when this process runs no pipeline. */
  replayer?: Replayer | null;
  /** Provider connectors (connection flows, template sync) and the per-channel limits of their calls. */
  connectors: Connectors;
  throttle: ChannelThrottle;
  /** The gateway's metrics (GET /metrics); a fresh set when not given. */
  metrics?: Metrics;
}

/** Relay lag: outbox rows not yet published to their stream, and how old the oldest is. */
function outboxLag(store: Store): { pending: number; oldest_pending_age_ms: number | null } {
  const { pending, oldestCreatedAt } = store.outbox.lag();
  return { pending, oldest_pending_age_ms: oldestCreatedAt === null ? null : Math.max(0, Date.now() - oldestCreatedAt) };
}

/** Builds the HTTP application: request log → error renderer → routes (each an explicit chain). */
export function createApp({ store, logger, config, replayer = null, connectors, throttle, metrics = new Metrics({ defaultMetrics: false }) }: AppDeps): { app: Koa<AppState>; router: Router<AppState> } {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true; // errors are rendered and logged by our own middleware
  const router = new Router<AppState>();
  const body = parseBody(config.bodyLimitBytes);
  const auth = authenticate(store.accounts, body);

  // Admin operations are described only where the admin API is mounted.
  const described = OPERATIONS.filter((op) => (op.auth !== 'admin' || config.adminToken !== null) && (config.providers.sandbox || !op.path.startsWith('/admin/sandbox/')));
  const openApi = buildOpenApi(described, { version: packageVersion(), serverUrl: config.publicUrl });
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApi;
  });

  router.get('/healthz', (ctx) => {
    const { error, ...health } = store.health();
    // The store's own error text stays in the log: the health answer is public.
    if (error !== undefined) ctx.state.log.error({ error }, 'store health check failed');
    ctx.status = health.status === 'ok' ? 200 : 503;
    ctx.body = { status: health.status, store: health, outbox: health.status === 'ok' ? outboxLag(store) : null };
  });

  // Prometheus metrics: behind GATEWAY_METRICS_TOKEN, else the admin token, else open like /healthz.
  const metricsAuth =
    config.metricsToken !== null
      ? [authenticateAdmin(config.metricsToken, 'GATEWAY_METRICS_TOKEN', 'metrics token')]
      : config.adminToken !== null
        ? [authenticateAdmin(config.adminToken)]
        : [];
  router.get('/metrics', ...metricsAuth, async (ctx) => {
    const { contentType, text } = await metrics.scrape();
    ctx.type = contentType;
    ctx.body = text;
  });

  companyRoutes(router, store, auth);
  const flows = new ConnectionFlows({ store, connectors, throttle, publicUrl: config.publicUrl, logger });
  channelRoutes(router, store, auth, flows, config.publicUrl);
  authRoutes(router, store, auth, flows);
  webhookRoutes(router, store, auth);
  attachmentRoutes(router, store, auth, config);
  conversationRoutes(router, store, auth);
  messageRoutes(router, store, auth, config.publicUrl);
  templateRoutes(router, store, auth);
  // Provider callbacks: verified by their own signatures over the raw body, never by the API token.
  const callbacks = callbackRoutes(router, { store, publicUrl: config.publicUrl, cloudAppSecret: config.cloudAppSecret, bodyLimitBytes: config.bodyLimitBytes, metrics });
  // The admin API exists only with its token configured; otherwise /admin paths answer 404.
  if (config.adminToken !== null) {
    adminRoutes(router, { store, adminToken: config.adminToken, replayer, bodyLimitBytes: config.bodyLimitBytes });
    adminCallbackRoutes(router, { store, adminToken: config.adminToken, publicUrl: config.publicUrl, cloudAppSecret: config.cloudAppSecret });
    adminConnectorRoutes(router, { store, adminToken: config.adminToken, flows, publicUrl: config.publicUrl, bodyLimitBytes: config.bodyLimitBytes, sandbox: config.providers.sandbox });
  }

  // Tracing on: a span around everything, the request line included (it carries the span's ids).
  if (isTracing()) app.use(traceRequests());
  app.use(requestLog(logger));
  app.use(metrics.httpMiddleware());
  app.use(renderErrors());
  // POST /callbacks/:provider/:channelId without the router's per-request matching and composing.
  app.use(callbacks);
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return { app, router };
}
