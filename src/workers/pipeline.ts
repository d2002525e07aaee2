import type { Config } from '../config/config.js';
import { AttemptRecorder } from '../dispatch/attempt-recorder.js';
import { DeliveryWorker } from '../dispatch/delivery-worker.js';
import { WebhookHttpClient } from '../dispatch/http-client.js';
import { PARTITIONS, STREAM, retryTier } from '../dispatch/jobs.js';
import { Replayer, ReplayTaskWorker } from '../dispatch/replay.js';
import { SsrfGuard } from '../dispatch/ssrf.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import { OutboxRelay } from '../outbox/relay.js';
import type { Store } from '../store/store.js';
import { KafkaStreamBus } from '../streams/kafka-stream.js';
import { SqliteStreamJanitor } from '../streams/sqlite-janitor.js';
import { SqliteStreamBus } from '../streams/sqlite-stream.js';
import { systemClock, type Clock, type StreamBus, type StreamSpec } from '../streams/stream.js';
import { supervise, type Supervisor, type Worker } from './supervisor.js';

/** all: everything in one process; core: store, API, relay, recorder; worker: the dispatcher only. */
export type Role = 'all' | 'core' | 'worker';

/** Every stream and the partition count the daemon creates it with (README, "Streams"). */
export function streamSpecs(config: Pick<Config, 'webhooks'>): StreamSpec[] {
  const tiers = config.webhooks.retryScheduleMs.slice(1).map((_, i) => ({ name: retryTier(i + 2), partitions: PARTITIONS.retryTier }));
  return [
    { name: STREAM.events, partitions: PARTITIONS.keyed },
    { name: STREAM.outbound, partitions: PARTITIONS.keyed },
    { name: STREAM.inbound, partitions: PARTITIONS.keyed },
    { name: STREAM.attempts, partitions: PARTITIONS.attempts },
    { name: STREAM.replays, partitions: PARTITIONS.replays },
    ...tiers,
  ];
}

/** Kafka streams when GATEWAY_KAFKA_BROKERS is set, else the SQLite streams of the store. */
export function openStreamBus(config: Config, store: Store | null, logger: Logger, clock: Clock): StreamBus {
  if (config.kafkaBrokers !== null) return new KafkaStreamBus({ brokers: config.kafkaBrokers, namespace: config.kafkaNamespace, clock }, logger);
  if (store === null) throw new Error('the worker role needs GATEWAY_KAFKA_BROKERS: embedded streams live in the core store');
  return new SqliteStreamBus(store.streamMessages, logger, { clock });
}

export interface Pipeline {
  bus: StreamBus;
  replayer: Replayer | null;
  stop(): Promise<void>;
}

/** Starts the pipeline workers of a role under one supervisor. */
export async function startPipeline(role: Role, config: Config, store: Store | null, logger: Logger, clock: Clock = systemClock, metrics?: Metrics): Promise<Pipeline> {
  const bus = openStreamBus(config, store, logger, clock);
  await bus.ensureStreams(streamSpecs(config));
  const workers: Worker[] = [];
  let replayer: Replayer | null = null;
  let client: WebhookHttpClient | null = null;
  if (role !== 'worker') {
    if (store === null) throw new Error('the core role needs the store');
    replayer = new Replayer({ store, bus, clock });
    workers.push(
      new OutboxRelay({ store, bus, clock, logger }),
      new AttemptRecorder({ store, bus, clock, disableAfterMs: config.webhooks.disableAfterMs, logger, metrics }),
      new ReplayTaskWorker({ store, replayer, clock, logger }),
    );
    if (bus.kind === 'sqlite') workers.push(new SqliteStreamJanitor({ messages: store.streamMessages, clock, logger }));
  }
  if (role !== 'core') {
    client = new WebhookHttpClient(new SsrfGuard(config.webhookAllowHosts));
    const { retryScheduleMs, retryJitter, retryAfterMaxMs, timeoutMs, endpointConcurrency } = config.webhooks;
    workers.push(
      new DeliveryWorker({
        bus,
        client,
        clock,
        logger,
        timeoutMs,
        endpointConcurrency,
        policy: { scheduleMs: retryScheduleMs, jitter: retryJitter, retryAfterMaxMs },
      }),
    );
  }
  const supervisor: Supervisor = supervise(workers, logger);
  return {
    bus,
    replayer,
    async stop() {
      await supervisor.stop();
      await client?.close();
      await bus.close();
    },
  };
}
