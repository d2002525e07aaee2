import { shardNamespace } from '../config/cluster.js';
import type { Config } from '../config/config.js';
import { shardOfId } from '../lib/shards.js';
import type { Logger } from '../log.js';
import { Metrics } from '../metrics/metrics.js';
import { STREAM_SPECS } from '../streams/catalog.js';
import { systemClock, type StreamBus, type StreamClientHealth } from '../streams/stream.js';
import { supervise } from '../workers/supervisor.js';
import { dispatchWorkers, openPoster, openSenders, openStreamBus } from './pipeline.js';
import { listenWorkerHttp } from './worker-http.js';

/**
 * `gateway serve --role worker`: the webhook dispatcher and the provider senders, against Kafka,
 * with no store. It serves every shard of the cluster (GATEWAY_CLUSTER_SHARDS; one for a single
 * core): each shard's streams have a bus of their own, so a job's attempt record and a send's
 * outcome go back on the streams of the shard the job came from. The poster, the connectors and the
 * per-channel throttle are shared. Several workers share the partitions through their consumer
 * groups. With GATEWAY_WORKER_PORT set it answers /healthz and /metrics there (worker-http.ts),
 * else it has no HTTP server at all.
 */
export async function startWorker(config: Config, logger: Logger): Promise<{ close(): Promise<void> }> {
  const metrics = new Metrics();
  const buses: StreamBus[] = [];
  for (let shard = 0; shard < config.clusterShards; shard++) {
    const namespace = shardNamespace(config.kafkaNamespace, shard, config.shardSlots);
    const bus = await openStreamBus({ ...config, kafkaNamespace: namespace }, null, logger, systemClock);
    buses.push(bus);
    await bus.ensureStreams(STREAM_SPECS);
  }
  const poster = openPoster(config, logger);
  const senders = openSenders(
    config,
    (channelId) => buses[shardOfId(channelId, config.shardSlots)] ?? buses[0]!,
    logger,
  );
  const supervisor = supervise(
    buses.flatMap((bus) => dispatchWorkers(config, bus, poster, senders, systemClock, logger)),
    logger,
  );
  const health = () => combinedHealth(buses);
  metrics.observe({ streamClients: health });
  const server =
    config.workerPort === null ? null : await listenWorkerHttp(config, config.workerPort, health, metrics, logger);
  logger.info({ brokers: config.kafkaBrokers, shards: buses.length, port: server?.port ?? null }, 'worker started');
  return {
    async close() {
      await server?.close();
      await supervisor.stop();
      await poster.close();
      await senders.connectors.close();
      await Promise.all(buses.map((bus) => bus.close()));
    },
  };
}

/** The Kafka clients of every shard's bus as one. */
function combinedHealth(buses: readonly StreamBus[]): StreamClientHealth {
  const healths = buses.flatMap((bus) => (bus.clientHealth === undefined ? [] : [bus.clientHealth()]));
  return {
    recovering: healths.flatMap((health) => health.recovering),
    recreated: {
      producer: healths.reduce((sum, health) => sum + health.recreated.producer, 0),
      consumer: healths.reduce((sum, health) => sum + health.recreated.consumer, 0),
    },
  };
}
