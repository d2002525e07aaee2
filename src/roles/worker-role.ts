import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import { Metrics } from '../metrics/metrics.js';
import { systemClock } from '../streams/stream.js';
import { startPipeline } from './pipeline.js';
import { listenWorkerHttp } from './worker-http.js';

/**
 * `gateway serve --role worker`: the webhook dispatcher and the provider senders, against Kafka,
 * with no store. Attempts go back to the core on gateway.attempts and send outcomes on
 * gateway.inbound; several workers share the partitions through their consumer groups. With
 * GATEWAY_WORKER_PORT set it answers /healthz and /metrics there (worker-http.ts), else it has no
 * HTTP server at all.
 */
export async function startWorker(config: Config, logger: Logger): Promise<{ close(): Promise<void> }> {
  const metrics = new Metrics();
  const pipeline = await startPipeline('worker', config, null, logger, systemClock, metrics);
  metrics.observe({ streamClients: pipeline.bus.clientHealth?.bind(pipeline.bus) });
  const server = config.workerPort === null ? null : await listenWorkerHttp(config, config.workerPort, pipeline.bus, metrics, logger);
  logger.info({ brokers: config.kafkaBrokers, port: server?.port ?? null }, 'worker started');
  return {
    async close() {
      await server?.close();
      await pipeline.stop();
    },
  };
}
