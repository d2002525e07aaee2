import http, { type Server } from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/config.js';
import { Front } from '../front/front.js';
import { FrontMetrics } from '../front/front-metrics.js';
import { ShardSet } from '../front/shard-set.js';
import { answerClientErrors } from '../http/client-errors.js';
import type { Logger } from '../log.js';

/** Seconds a client is told to wait when a shard is down: about how often the front probes it, with room to start. */
const RETRY_AFTER_SECONDS = 5;

/**
 * `gateway serve --role front`: the stateless router of a sharded cluster (src/front/). It needs
 * GATEWAY_SHARD_URLS (the cores, in shard order) and GATEWAY_SHARD_SLOTS; it opens no store and
 * no Kafka client. Listens on GATEWAY_HOST:GATEWAY_PORT with the core's request timeouts.
 */
export async function startFront(config: Config, logger: Logger): Promise<{ port: number; close(): Promise<void> }> {
  const metrics = new FrontMetrics();
  let address = '';
  const shards = new ShardSet(
    config.shardUrls,
    {
      connectTimeoutMs: config.frontConnectTimeoutMs,
      responseTimeoutMs: config.requestTimeoutMs,
      connections: config.frontConnections,
      probeIntervalMs: 500,
    },
    metrics,
    logger,
  );
  const front = new Front({
    shards,
    slots: config.shardSlots,
    metrics,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    // A multipart upload whose company_id comes after its file is held up to what a core accepts.
    uploadHoldBytes: config.attachmentMaxBytes + config.bodyLimitBytes,
    metricsToken: config.metricsToken ?? config.adminToken,
    retryAfterSeconds: RETRY_AFTER_SECONDS,
    adminToken: config.adminToken,
    workerUrls: config.workerUrls,
    // Known once the server listens (a port of 0 picks one).
    address: () => address,
  });
  const server: Server = http.createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: 1_000,
    },
    front.listener,
  );
  answerClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  server.keepAliveTimeout = 5_000;
  const port = (server.address() as AddressInfo).port;
  address = `http://${os.hostname()}:${port}`;
  logger.info(
    { host: config.host, port, role: 'front', shards: config.shardUrls, slots: config.shardSlots },
    'gateway listening',
  );
  return {
    port,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await shards.close();
    },
  };
}
