import http, { type Server } from 'node:http';
import type Router from '@koa/router';
import type { AddressInfo } from 'node:net';
import { storePath, type Config } from '../config/config.js';
import { shardNamespace } from '../config/cluster.js';
import { createAccount } from '../domain/directory.js';
import { digestApiToken, generateApiToken, tokenPrefix } from '../domain/tokens.js';
import { startDirectory } from './directory.js';
import { createApp } from './http-app.js';
import { answerClientErrors } from '../http/client-errors.js';
import type { AppState } from '../http/context.js';
import type { Logger } from '../log.js';
import { Metrics } from '../metrics/metrics.js';
import { coreSources } from './metric-sources.js';
import { WalCheckpointer } from '../store/engine/checkpointer.js';
import { Store } from '../store/store.js';
import type { Clock } from '../streams/stream.js';
import { startPipeline, type Pipeline } from './pipeline.js';
import type { LiveEventStreams } from '../http/live-events.js';

export interface RunningGateway {
  store: Store;
  port: number;
  /** Every registered route (the auth test walks them all). */
  router: Router<AppState>;
  /** The routes of the browser faces (console, portal): their pages, sessions and the portal's API. */
  webRouter: Router<AppState>;
  pipeline: Pipeline;
  metrics: Metrics;
  /** The open live event streams of this process. */
  liveStreams: LiveEventStreams;
  close(): Promise<void>;
}

/**
 * Opens the store, makes sure an account exists and starts listening. Configuration was validated
 * by the caller before this runs.
 */
export interface GatewayOptions {
  /** 'all' (default) also runs the webhook dispatcher; 'core' leaves it to `serve --role worker` processes. */
  role?: 'all' | 'core';
  /** Time source of the retry schedule (tests pass a clock they move by hand). */
  clock?: Clock;
}

export async function startGateway(
  settings: Config,
  logger: Logger,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  // A core of a cluster keeps its shard's streams under a namespace of their own.
  const config = {
    ...settings,
    kafkaNamespace: shardNamespace(settings.kafkaNamespace, settings.shard, settings.shardSlots),
  };
  const file = storePath(config);
  const store = Store.open(file, { shard: config.shard, slots: config.shardSlots });
  logger.info({ store: file, schema_version: store.health().schema_version }, 'store ready');
  bootstrapAccount(store, config, logger);
  const directory = config.kafkaBrokers === null ? null : await startDirectory(settings, store, logger);
  const metrics = new Metrics();
  const checkpointer =
    config.storeCheckpointMs > 0
      ? new WalCheckpointer(store.db, file, config.storeCheckpointMs, logger, (report) =>
          metrics.checkpointed(report.walFrames, report.durationMs),
        )
      : null;

  // Bind first: with port 0 the real port, and so the default public URL, is known only then (the
  // pipeline needs it too: send jobs carry attachment URLs, connectors the callback address).
  // Requests that arrive while the pipeline starts wait for the app instead of hanging unanswered.
  const server: Server = http.createServer({
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    // How often Node looks for connections past those timeouts (its default is 30 s).
    connectionsCheckingInterval: 1_000,
  });
  answerClientErrors(server);
  let handle: http.RequestListener | null = null;
  const early: [http.IncomingMessage, http.ServerResponse][] = [];
  server.on('request', (req, res) => (handle === null ? early.push([req, res]) : handle(req, res)));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  // Idle keep-alive sockets must not outlive a shutdown.
  server.keepAliveTimeout = 5_000;
  const port = (server.address() as AddressInfo).port;
  const publicUrl = config.port === 0 ? config.publicUrl.replace(/:0$/, `:${port}`) : config.publicUrl;
  let pipeline: Pipeline;
  try {
    pipeline = await startPipeline(
      options.role ?? 'all',
      { ...config, publicUrl },
      store,
      logger,
      options.clock,
      metrics,
    );
  } catch (error) {
    for (const [, res] of early.splice(0)) res.writeHead(503, { connection: 'close' }).end();
    server.close();
    await directory?.close();
    await checkpointer?.close();
    store.close();
    throw error;
  }
  metrics.observe(coreSources(store, pipeline.bus));
  logger.info({ streams: pipeline.bus.kind, role: options.role ?? 'all' }, 'pipeline started');
  const {
    app,
    router,
    webRouter,
    liveStreams,
    close: closeApp,
  } = createApp({
    store,
    logger,
    config: { ...config, publicUrl },
    replayer: pipeline.replayer,
    connectors: pipeline.connectors,
    throttle: pipeline.throttle,
    metrics,
    streamClients: pipeline.bus.clientHealth?.bind(pipeline.bus),
  });
  handle = app.callback();
  for (const [req, res] of early.splice(0)) handle(req, res);
  logger.info({ host: config.host, port }, 'gateway listening');

  return {
    store,
    port,
    router,
    webRouter,
    pipeline,
    metrics,
    liveStreams,
    async close() {
      // An open stream would keep its connection, and the server, open for ever.
      liveStreams.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await closeApp();
      await pipeline.stop();
      await directory?.close();
      await checkpointer?.close();
      store.close();
    },
  };
}

/**
 * First start on an empty store: create the first account, with GATEWAY_BOOTSTRAP_TOKEN as its
 * token when set, else with a generated token printed once (it is stored hashed and cannot be
 * shown again). In a cluster the first account is shard 0's: with GATEWAY_BOOTSTRAP_TOKEN every
 * shard writes the same account and token (shard 0's ids) and shard 0 publishes them, so the token
 * works on every shard from its first request; a generated token is made by shard 0 alone and
 * reaches the others through the directory.
 */
function bootstrapAccount(store: Store, config: Config, logger: Logger): void {
  if (config.shard !== 0 && config.bootstrapToken === null) return;
  const created = store.transaction(() => {
    if (store.accounts.count() > 0) return null;
    const token = config.bootstrapToken ?? generateApiToken();
    if (config.shard === 0) {
      createAccount(store, 'default', digestApiToken(token), tokenPrefix(token));
    } else {
      const now = Date.now();
      store.directory.applyAccount({ id: 1, name: 'default', created_at: now });
      store.directory.applyToken({
        id: 1,
        account_id: 1,
        token_sha256: digestApiToken(token),
        created_at: now,
        prefix: tokenPrefix(token),
        revoked_at: null,
      });
    }
    return token;
  });
  if (created === null) return;
  if (config.bootstrapToken !== null) {
    logger.info('created the first account with the API token from GATEWAY_BOOTSTRAP_TOKEN');
  } else {
    // The one place a token is ever written out: it exists nowhere else and is needed to use the API.
    logger.warn({ api_token: created }, 'created the first account; its API token is shown once, keep it');
  }
}
