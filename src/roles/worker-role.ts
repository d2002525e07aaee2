import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import { startPipeline } from './pipeline.js';

/**
 * `gateway serve --role worker`: the webhook dispatcher and the provider senders, against Kafka,
 * with no store and no HTTP server. Attempts go back to the core on gateway.attempts and send
 * outcomes on gateway.inbound; several workers share the partitions through their consumer groups.
 */
export async function startWorker(config: Config, logger: Logger): Promise<{ close(): Promise<void> }> {
  const pipeline = await startPipeline('worker', config, null, logger);
  logger.info({ brokers: config.kafkaBrokers }, 'worker started');
  return { close: () => pipeline.stop() };
}
