import type { Config } from '../config/config.js';
import { AttemptRecorder } from '../dispatch/attempt-recorder.js';
import { DeliveryJanitor } from '../dispatch/delivery-janitor.js';
import { DeliveryWorker } from '../dispatch/delivery-worker.js';
import { WebhookHttpClient } from '../dispatch/http-client.js';
import { BrokerDestinations } from '../dispatch/destinations/pool.js';
import { InlinePoster, ThreadedPoster, type WebhookPoster } from '../dispatch/webhook-poster.js';
import { STREAM_SPECS } from '../streams/catalog.js';
import { Replayer, ReplayTaskWorker } from '../dispatch/replay.js';
import { RetryScheduler } from '../dispatch/retry-scheduler.js';
import { SsrfGuard } from '../net/ssrf.js';
import { createPresenters } from '../presenters/presenters.js';
import { publicUrls } from '../presenters/public-urls.js';
import { ReceiptJanitor } from '../ingest/receipt-janitor.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import { EventLogJanitor, OutboxJanitor } from '../outbox/janitor.js';
import { IdempotencyJanitor } from '../workers/idempotency-janitor.js';
import { MessageRetention } from '../workers/message-retention.js';
import { attachmentsFolder } from '../api/v2/attachments.js';
import { OutboxRelay } from '../outbox/relay.js';
import type { Store } from '../store/store.js';
import { SqliteStreamBus } from '../streams/sqlite/sqlite-stream.js';
import { systemClock, type Clock, type StreamBus } from '../streams/stream.js';
import { supervise, type Supervisor, type Worker } from '../workers/supervisor.js';
import { Connectors } from '../connectors/registry.js';
import { ProviderSender, publishFactLater } from '../connectors/sender.js';
import { ChannelThrottle } from '../connectors/throttle.js';
import { InboundApplier } from '../ingest/inbound-worker.js';

/** all: everything in one process; core: store, API, relay, recorder, retry scheduler; worker: the dispatcher and the provider senders. */
export type Role = 'all' | 'core' | 'worker';

/** Kafka streams when GATEWAY_KAFKA_BROKERS is set, else the SQLite streams of the store. */
export async function openStreamBus(
  config: Pick<
    Config,
    'kafkaBrokers' | 'kafkaNamespace' | 'kafkaSessionTimeoutMs' | 'kafkaHeartbeatIntervalMs' | 'kafkaLingerMs'
  >,
  store: Store | null,
  logger: Logger,
  clock: Clock,
): Promise<StreamBus> {
  if (config.kafkaBrokers !== null) {
    // Loaded only then: an embedded gateway does not hold the Kafka client in memory.
    const { KafkaStreamBus } = await import('../streams/kafka/kafka-stream.js');
    return new KafkaStreamBus(
      {
        brokers: config.kafkaBrokers,
        namespace: config.kafkaNamespace,
        sessionTimeoutMs: config.kafkaSessionTimeoutMs,
        heartbeatIntervalMs: config.kafkaHeartbeatIntervalMs,
        lingerMs: config.kafkaLingerMs,
        clock,
      },
      logger,
    );
  }
  if (store === null)
    throw new Error('the worker role needs GATEWAY_KAFKA_BROKERS: embedded streams live in the core store');
  return new SqliteStreamBus(store.streamMessages, logger, { clock });
}

export interface Pipeline {
  bus: StreamBus;
  replayer: Replayer;
  /** The provider connectors (senders here; connection flows and template sync in the API). */
  connectors: Connectors;
  /** Per-channel limits of every provider call of this process. */
  throttle: ChannelThrottle;
  stop(): Promise<void>;
}

/** The provider connectors of one process and the per-channel limits of its provider calls. */
export interface Senders {
  connectors: Connectors;
  /** Channel ids are unique across shards, so one throttle serves every shard a worker serves. */
  throttle: ChannelThrottle;
}

/** `busOf` names the streams of a channel's shard, where its connector's later news goes. */
export function openSenders(config: Config, busOf: (channelId: number) => StreamBus, logger: Logger): Senders {
  // The sandbox's later news (QR scanned, delivered, read) goes out as facts on gateway.inbound.
  const connectors = new Connectors(config.providers, (channelId, items, afterMs) =>
    publishFactLater(
      busOf(channelId),
      channelId,
      items,
      afterMs,
      `${channelId}:${items[0]?.kind ?? 'fact'}:${Date.now()}:${Math.random().toString(36).slice(2)}`,
      logger,
    ),
  );
  return {
    connectors,
    throttle: new ChannelThrottle(config.providers.channelConcurrency, config.providers.channelRatePerSecond),
  };
}

/** The webhook poster of a process that dispatches: on threads of its own, or on the event loop. */
export function openPoster(config: Config, logger: Logger): WebhookPoster {
  const { threads } = config.webhooks;
  return threads > 0
    ? new ThreadedPoster({ threads, data: { allowHosts: config.webhookAllowHosts }, logger })
    : inlinePoster(new SsrfGuard(config.webhookAllowHosts));
}

function inlinePoster(guard: SsrfGuard): WebhookPoster {
  return new InlinePoster(new WebhookHttpClient(guard), new BrokerDestinations(guard));
}

/**
 * The dispatcher and the provider sender of one shard's streams. Attempts are recorded by `record`
 * in the core's own process (role all), else published on that shard's gateway.attempts.
 */
export function dispatchWorkers(
  config: Config,
  bus: StreamBus,
  poster: WebhookPoster,
  senders: Senders,
  clock: Clock,
  logger: Logger,
  record?: AttemptRecorder,
): Worker[] {
  const {
    retryScheduleMs,
    retryJitter,
    retryAfterMaxMs,
    timeoutMs,
    endpointConcurrency,
    endpointMaxAttempts,
    endpointMaxDelayMs,
  } = config.webhooks;
  return [
    new DeliveryWorker({
      bus,
      poster,
      clock,
      logger,
      timeoutMs,
      endpointConcurrency,
      policy: {
        scheduleMs: retryScheduleMs,
        jitter: retryJitter,
        retryAfterMaxMs,
        endpointBounds: { maxAttempts: endpointMaxAttempts, maxDelayMs: endpointMaxDelayMs },
      },
      record: record === undefined ? undefined : record.record.bind(record),
    }),
    new ProviderSender({
      bus,
      connectors: senders.connectors,
      throttle: senders.throttle,
      retryScheduleMs: config.providers.retryScheduleMs,
      clock,
      logger,
    }),
  ];
}

/** Starts the pipeline workers of a core (role all or core) under one supervisor. */
export async function startPipeline(
  role: Exclude<Role, 'worker'>,
  config: Config,
  store: Store,
  logger: Logger,
  clock: Clock = systemClock,
  metrics?: Metrics,
): Promise<Pipeline> {
  const bus = await openStreamBus(config, store, logger, clock);
  await bus.ensureStreams(STREAM_SPECS);
  // Automatic attempts the embedded stream kept in memory only, left unsent by the last run: due now.
  if (bus.kind === 'sqlite') {
    const unsent = store.unsent.scheduleUnsent(clock.now());
    if (unsent > 0) logger.info({ deliveries: unsent }, 'automatic attempts left unsent by the last run are due now');
  }
  const stopCounting = metrics === undefined ? () => {} : store.outbox.onPublished((rows) => metrics.published(rows));
  const replayer = new Replayer({ store, bus, clock, operatorWebhook: config.operatorWebhook });
  const scheduler = new RetryScheduler({ store, bus, clock, logger, operatorWebhook: config.operatorWebhook, metrics });
  const recorder = new AttemptRecorder({
    store,
    bus,
    clock,
    disableAfterMs: config.webhooks.disableAfterMs,
    logger,
    metrics,
    onOrderedAttempt: () => scheduler.wake(),
  });
  const urls = publicUrls(config.publicUrl);
  const workers: Worker[] = [
    new OutboxRelay({ store, bus, clock, logger, urls, operatorWebhook: config.operatorWebhook }),
    new InboundApplier({ store, bus, presenters: createPresenters(urls), logger }),
    recorder,
    scheduler,
    new ReceiptJanitor({ store, clock, logger }),
    new OutboxJanitor({ store, clock, logger }),
    new EventLogJanitor({ store, clock, logger }),
    new DeliveryJanitor({ store, clock, logger, retainMs: config.webhooks.retentionMs }),
    new IdempotencyJanitor({ store, clock, logger }),
    new MessageRetention({
      store,
      clock,
      logger,
      defaultRetentionMs: config.messageRetentionMs,
      folder: attachmentsFolder(config),
    }),
    new ReplayTaskWorker({ store, replayer, clock, logger }),
  ];
  // The connectors serve the API's connection flows in both roles; a core of role all dispatches too.
  const senders = openSenders(config, () => bus, logger);
  const poster = role === 'all' ? openPoster(config, logger) : null;
  if (poster !== null) workers.push(...dispatchWorkers(config, bus, poster, senders, clock, logger, recorder));
  const supervisor: Supervisor = supervise(workers, logger);
  return {
    bus,
    replayer,
    ...senders,
    async stop() {
      await supervisor.stop();
      stopCounting();
      await poster?.close();
      await senders.connectors.close();
      await bus.close();
    },
  };
}
