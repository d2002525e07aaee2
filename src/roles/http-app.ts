import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { channelRoutes } from '../api/v1/channels.js';
import { companyRoutes } from '../api/v1/companies.js';
import { v1ConversationRoutes } from '../api/v1/conversations.js';
import { authRoutes } from '../api/v2/auths.js';
import { webhookRoutes } from '../api/v2/webhooks.js';
import { eventTypeRoutes } from '../api/v2/event-types.js';
import { eventStreamRoutes } from '../api/v2/event-stream.js';
import { LiveEventStreams } from '../http/live-events.js';
import { contactRoutes } from '../api/v2/contacts.js';
import { companySettingsRoutes } from '../api/v2/company-settings.js';
import { providerRoutes } from '../api/v2/providers.js';
import { attachmentRoutes, attachmentsFolder } from '../api/v2/attachments.js';
import { conversationRoutes } from '../api/v2/conversations.js';
import { messageRoutes } from '../api/v2/messages.js';
import { messageActionRoutes } from '../api/v2/message-actions.js';
import { templateRoutes } from '../api/v2/templates.js';
import { adminRoutes } from '../admin/routes.js';
import { adminCallbackRoutes } from '../admin/callbacks.js';
import { adminConnectorRoutes } from '../admin/connectors.js';
import { callbackRoutes } from '../callbacks/routes.js';
import { oauthRoutes } from '../callbacks/oauth.js';
import { consoleRoutes } from '../console/routes.js';
import { portalRoutes } from '../portal/routes.js';
import type { Config } from '../config/config.js';
import type { Connectors } from '../connectors/registry.js';
import { ConnectionFlows } from '../connectors/flows.js';
import type { ChannelThrottle } from '../connectors/throttle.js';
import type { Replayer } from '../dispatch/replay.js';
import { BrokerDestinations } from '../dispatch/destinations/pool.js';
import { EndpointTester } from '../dispatch/endpoint-test.js';
import { WebhookHttpClient } from '../dispatch/http-client.js';
import { SsrfGuard } from '../net/ssrf.js';
import { createPresenters } from '../presenters/presenters.js';
import { publicUrls } from '../presenters/public-urls.js';
import { FileFetcher } from '../api/v2/fetch-file.js';
import type { Logger } from '../log.js';
import { buildOpenApi } from '../openapi/document.js';
import { OPERATIONS } from '../openapi/operations/index.js';
import { EVENT_CATALOG } from '../../schemas/events/catalog.js';
import { packageVersion } from '../openapi/version.js';
import type { Store } from '../store/store.js';
import type { StreamClientHealth } from '../streams/stream.js';
import { Metrics } from '../metrics/metrics.js';
import { authenticate } from '../http/authenticate.js';
import { AuthThrottle } from '../http/auth-throttle.js';
import { TokenUse } from '../http/token-use.js';
import { idempotency } from '../http/idempotency.js';
import { rateLimit } from '../http/rate-limit.js';
import { parseBody } from '../http/body.js';
import type { AppState } from '../http/context.js';
import { renderErrors } from '../http/render-errors.js';
import { checkQuery } from '../http/query.js';
import { requestLog } from '../http/request-log.js';
import { AssetFolder, webDir, webSecurityHeaders } from '../http/web-assets.js';
import { traceRequests } from '../http/trace-requests.js';
import { isTracing } from '../tracing/tracer.js';
import { healthAndMetricsRoutes } from './health-and-metrics.js';

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
  /** Kafka mode: the stream clients being recreated and how many were (shown at /healthz). */
  streamClients?: () => StreamClientHealth;
}

/**
 * Every answer but a callback's: `X-Content-Type-Options: nosniff`, and `Cache-Control: no-store`
 * unless the route chose its caching (files, web assets). Answers carry an account's data, secrets
 * (webhook secrets, portal links) and event bodies: no shared or browser cache may keep them.
 */
const privateAnswers: Middleware<AppState> = async (ctx, next) => {
  try {
    await next();
  } finally {
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
  }
};

/** The paths of the browser faces: their answers carry the strict Content-Security-Policy. */
const WEB_PATHS = /^\/(console|portal|assets)(\/|$)/;

/**
 * Builds the HTTP application: request log → error renderer → routes (each an explicit chain).
 * `router` holds the JSON API (described by /openapi.json); `webRouter` the browser faces: the
 * console's and the portal's pages, their sessions and the portal's own API.
 */
export function createApp({
  store,
  logger,
  config,
  replayer = null,
  connectors,
  throttle,
  metrics = new Metrics({ defaultMetrics: false }),
  streamClients,
}: AppDeps): {
  app: Koa<AppState>;
  router: Router<AppState>;
  webRouter: Router<AppState>;
  /** The open live event streams (GET .../events/stream and the portal's). */
  liveStreams: LiveEventStreams;
  /** Closes the app's own outbound clients (test POSTs to webhook endpoints, attachment downloads). */
  close(): Promise<void>;
} {
  // Behind GATEWAY_TRUST_PROXY proxies, ctx.ip (the throttles' source address) is the client's as
  // the nearest trusted proxy saw it; otherwise X-Forwarded-* headers are ignored.
  const app = new Koa<AppState>({ proxy: config.trustProxy > 0, maxIpsCount: config.trustProxy });
  app.silent = true; // errors are rendered and logged by our own middleware
  const router = new Router<AppState>();
  const webRouter = new Router<AppState>();
  // Cookies are Secure whenever the public URL is https (a TLS proxy in front: docs/operations.md).
  const secureCookies = config.publicUrl.startsWith('https:');
  const sharedAssets = new AssetFolder(webDir('shared'));
  webRouter.get('/assets/:file', sharedAssets.serve());
  const body = parseBody(config);
  // Wrong admin tokens on every path taking one (admin API, /metrics, console login), and wrong API tokens.
  const guessing = new AuthThrottle(config, metrics);
  // Every API route: the token, then the rate limit of its group, then the Idempotency-Key of a POST.
  const tokenUse = new TokenUse(store);
  const authenticated = authenticate(store.accounts, body, guessing, (token) => tokenUse.used(token));
  const limited = rateLimit(config.apiLimits.rateLimits);
  const idempotent = idempotency(store);
  const auth: Middleware<AppState> = async (ctx, next) => {
    await authenticated(ctx, async () => {
      await limited(ctx, async () => {
        await idempotent(ctx, next);
      });
    });
  };
  // Outbound requests the API makes itself, through the same SSRF guard as the webhooks.
  const guard = new SsrfGuard(config.webhookAllowHosts);
  const tester = new EndpointTester(
    new WebhookHttpClient(guard, { connections: 8, quickRetries: 0 }),
    config.webhooks.timeoutMs,
    new BrokerDestinations(guard, 10_000),
  );
  const fetcher = new FileFetcher(guard, {
    maxBytes: config.attachmentMaxBytes,
    timeoutMs: config.apiLimits.attachmentFetchTimeoutMs,
  });

  // Admin operations are described only where the admin API is mounted.
  const described = OPERATIONS.filter(
    (op) =>
      (op.auth !== 'admin' || config.adminToken !== null) &&
      (config.providers.sandbox || !op.path.startsWith('/admin/sandbox/')),
  );
  const openApi = buildOpenApi(described, { version: packageVersion(), serverUrl: config.publicUrl }, EVENT_CATALOG);
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApi;
  });

  healthAndMetricsRoutes(router, { store, config, throttle: guessing, metrics, streamClients });

  // The presenters whose objects carry the gateway's addresses, made once for every face.
  const presenters = createPresenters(publicUrls(config.publicUrl));
  companyRoutes(router, store, auth);
  const flows = new ConnectionFlows({ store, connectors, throttle, publicUrl: config.publicUrl, presenters, logger });
  channelRoutes(router, store, auth, flows, presenters);
  v1ConversationRoutes(router, store, auth);
  authRoutes(router, store, auth, flows);
  webhookRoutes(
    router,
    store,
    auth,
    tester,
    guard,
    { maxAttempts: config.webhooks.endpointMaxAttempts, maxDelayMs: config.webhooks.endpointMaxDelayMs },
    metrics,
  );
  eventTypeRoutes(router, auth);
  const liveStreams = new LiveEventStreams(store.eventLog);
  eventStreamRoutes(router, store, auth, liveStreams);
  contactRoutes(router, store, auth, attachmentsFolder(config));
  companySettingsRoutes(router, store, auth, config.messageRetentionMs);
  providerRoutes(router, auth);
  attachmentRoutes(router, store, auth, config, fetcher, presenters);
  conversationRoutes(router, store, auth);
  messageRoutes(router, store, auth, presenters);
  messageActionRoutes(router, store, auth, presenters);
  templateRoutes(router, store, auth);
  portalRoutes(router, webRouter, {
    store,
    apiAuth: auth,
    publicUrl: config.publicUrl,
    secureCookies,
    bodyLimits: config,
    replayer,
    metrics,
    guard,
    publicOrigin: config.publicOrigin,
    liveStreams,
  });
  // Provider callbacks: verified by their own signatures over the raw body, never by the API token.
  oauthRoutes(router, store, flows);
  const callbacks = callbackRoutes(router, {
    store,
    presenters,
    cloudAppSecret: config.cloudAppSecret,
    bodyLimitBytes: config.bodyLimitBytes,
    bodyTimeoutMs: config.bodyTimeoutMs,
    jsonMaxDepth: config.jsonMaxDepth,
    metrics,
  });
  // The admin API exists only with its token configured; otherwise /admin paths answer 404.
  if (config.adminToken !== null) {
    const consoleSession = consoleRoutes(webRouter, {
      store,
      adminToken: config.adminToken,
      secureCookies,
      publicOrigin: config.publicOrigin,
      bodyLimits: config,
      throttle: guessing,
    });
    adminRoutes(router, {
      store,
      adminToken: config.adminToken,
      replayer,
      bodyLimits: config,
      consoleSession,
      metrics,
      throttle: guessing,
    });
    adminCallbackRoutes(router, {
      store,
      adminToken: config.adminToken,
      publicUrl: config.publicUrl,
      cloudAppSecret: config.cloudAppSecret,
      throttle: guessing,
    });
    adminConnectorRoutes(router, {
      store,
      adminToken: config.adminToken,
      flows,
      presenters,
      bodyLimits: config,
      sandbox: config.providers.sandbox,
      throttle: guessing,
    });
  }

  // Tracing on: a span around everything, the request line included (it carries the span's ids).
  if (isTracing()) app.use(traceRequests());
  app.use(requestLog(logger));
  app.use(metrics.httpMiddleware());
  app.use(renderErrors());
  app.use(checkQuery(config.queryMaxBytes));
  // POST /callbacks/:provider/:channelId without the router's per-request matching and composing.
  app.use(callbacks);
  app.use(privateAnswers);
  const webHeaders = webSecurityHeaders();
  app.use(async (ctx, next) => {
    await (WEB_PATHS.test(ctx.path) ? webHeaders(ctx, next) : next());
  });
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  app.use(webRouter.routes());
  app.use(webRouter.allowedMethods({ throw: true }));
  const close = async () => {
    await Promise.all([tester.close(), fetcher.close()]);
  };
  return { app, router, webRouter, liveStreams, close };
}
