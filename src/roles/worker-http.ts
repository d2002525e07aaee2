import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import type { Config } from '../config/config.js';
import type { AppState } from '../http/context.js';
import { renderErrors } from '../http/render-errors.js';
import { requestLog } from '../http/request-log.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import type { StreamClientHealth } from '../streams/stream.js';
import { kafkaClients, metricsAuth } from './health-and-metrics.js';
import { AuthThrottle } from '../http/auth-throttle.js';

/**
 * The HTTP server of a `--role worker` process (GATEWAY_WORKER_PORT): /healthz shows its Kafka
 * clients (`kafka_clients`, as the core's does: any being recreated, and how many were), /metrics
 * its own metrics (the `gateway_kafka_*` ones and the process's), behind the same token as the
 * core's. Nothing else: a worker has no store and serves no API. Resolves once it listens.
 */
export async function listenWorkerHttp(
  config: Config,
  port: number,
  clientHealth: () => StreamClientHealth,
  metrics: Metrics,
  logger: Logger,
): Promise<{ port: number; close(): Promise<void> }> {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true;
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok', role: 'worker', kafka_clients: kafkaClients(clientHealth()) };
  });
  router.get('/metrics', ...metricsAuth(config, new AuthThrottle(config, metrics)), async (ctx) => {
    const { contentType, text } = await metrics.scrape();
    ctx.type = contentType;
    ctx.body = text;
  });
  app.use(requestLog(logger));
  app.use(renderErrors());
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));

  const server: Server = http.createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, () => resolve());
  });
  server.keepAliveTimeout = 5_000;
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
