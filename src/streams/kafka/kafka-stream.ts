import { kafkaClient } from './kafka-client.js';
import type { Logger } from '../../log.js';
import { KafkaConsumers } from './kafka-consumer.js';
import type { GroupTimings } from './kafka-group-member.js';
import { KafkaClientHealth } from './kafka-health.js';
import { KafkaNames, KafkaTopicAdmin } from './kafka-offsets.js';
import { KafkaPublisher } from './kafka-producer.js';
import {
  systemClock,
  type BatchSubscribeOptions,
  type Clock,
  type OutgoingMessage,
  type StreamBus,
  type StreamClientHealth,
  type StreamLag,
  type StreamPosition,
  type StreamSpec,
  type SubscribeOptions,
  type Subscription,
} from '../stream.js';

export interface KafkaStreamOptions extends GroupTimings {
  brokers: string[];
  clientId?: string;
  clock?: Clock;
  /** Prefix of every topic and consumer group, so that several installs (or test runs) share a cluster. */
  namespace?: string;
  /** Replication factor of the topics the daemon creates. Default 1 (single-broker installs). */
  replicationFactor?: number;
  /**
   * Retries of kafkajs' own attempts before an operation fails (a send, a connect), 100 ms apart at
   * first and growing to 1 s. Default 8 (about 5 s in all).
   */
  connectionRetries?: number;
  /** Least time between two offset commits of a consumer (they gather meanwhile). Default 100 ms. */
  commitIntervalMs?: number;
  /**
   * How long a publish made while no send is on its way waits for others to share its produce
   * request (Kafka's linger.ms). Default 0.
   */
  lingerMs?: number;
}

/**
 * Streams as Kafka topics. Producers are idempotent and wait for all in-sync replicas (acks -1).
 * Consumers hand messages to a KeyedRunner and commit by hand: per partition, the committed
 * offset never passes a message still in a handler, so a crash redelivers, never skips.
 *
 * The bus owns the kafkajs client and hands the work to three parts sharing it: KafkaPublisher
 * (kafka-producer.ts) publishes, KafkaConsumers (kafka-consumer.ts) consumes in groups and
 * commits, KafkaTopicAdmin (kafka-offsets.ts) creates the topics and reads the lag. Messages of a
 * partition published together travel packed in one record (kafka-records.ts).
 *
 * No client outlives a state it cannot leave: a producer whose send failed and a consumer that
 * crashed are closed and replaced (kafka-producer.ts, kafka-group-member.ts), and KafkaClientHealth
 * (kafka-health.ts) shows the ones being replaced and counts the replacements.
 */
export class KafkaStreamBus implements StreamBus {
  readonly kind = 'kafka' as const;
  private readonly topicAdmin: KafkaTopicAdmin;
  private readonly publisher: KafkaPublisher;
  private readonly consumers: KafkaConsumers;
  private readonly health: KafkaClientHealth;

  constructor(options: KafkaStreamOptions, logger: Logger) {
    const clock = options.clock ?? systemClock;
    const kafka = kafkaClient(
      { clientId: options.clientId ?? 'gateway', brokers: options.brokers, retries: options.connectionRetries },
      logger.child({ component: 'kafkajs' }),
    );
    const names = new KafkaNames(options);
    this.health = new KafkaClientHealth(logger.child({ component: 'kafka-clients' }));
    this.topicAdmin = new KafkaTopicAdmin(kafka, names, options);
    this.publisher = new KafkaPublisher(kafka, names, clock, this.health, logger, options.lingerMs);
    this.consumers = new KafkaConsumers(kafka, names, options, clock, this.health, logger);
  }

  clientHealth(): StreamClientHealth {
    return this.health.snapshot();
  }

  ensureStreams(streams: readonly StreamSpec[]): Promise<void> {
    return this.topicAdmin.ensureStreams(streams);
  }

  /** Resolves once the broker acknowledged the messages; see KafkaPublisher.publish for the batching. */
  publish(stream: string, messages: readonly OutgoingMessage[]): Promise<void> {
    return this.publisher.publish(stream, messages);
  }

  subscribe(options: SubscribeOptions): Subscription {
    return this.consumers.subscribe(options);
  }

  subscribeBatches(options: BatchSubscribeOptions): Subscription {
    return this.consumers.subscribeBatches(options);
  }

  lag(positions: readonly StreamPosition[]): Promise<StreamLag[]> {
    return this.topicAdmin.lag(positions);
  }

  /** Stops every subscription, then disconnects the admin client and the producer. */
  async close(): Promise<void> {
    await this.consumers.stopAll();
    await this.topicAdmin.close();
    await this.publisher.close();
  }
}
