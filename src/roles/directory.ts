import type { Config } from '../config/config.js';
import { followDirectory } from '../ingest/directory-replica.js';
import type { Logger } from '../log.js';
import { DirectoryRelay } from '../outbox/directory-relay.js';
import type { Store } from '../store/store.js';
import { KafkaDirectoryLog } from '../streams/kafka/kafka-directory.js';
import { supervise } from '../workers/supervisor.js';

/**
 * A core's part of the cluster's directory in Kafka mode (docs/scaling.md): the relay publishes the
 * accounts and tokens this store makes, the replica writes everyone's into this store. Resolves once
 * the store holds the whole directory as the topic had it at the start, so the core serves no
 * request with an account missing that another core made before.
 */
export async function startDirectory(
  config: Config,
  store: Store,
  logger: Logger,
): Promise<{ close(): Promise<void> }> {
  const log = new KafkaDirectoryLog({ brokers: config.kafkaBrokers!, namespace: config.kafkaNamespace }, logger);
  await log.ensureTopic();
  const replica = await followDirectory(store, log, logger.child({ component: 'directory' }));
  await replica.caughtUp;
  const relay = supervise([new DirectoryRelay({ store, log, logger })], logger);
  logger.info('directory in step with the cluster');
  return {
    async close() {
      await relay.stop();
      await replica.stop();
      await log.close();
    },
  };
}
