import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka, Producer } from 'kafkajs';
import { kafkaClient } from './kafka-client.js';
import type { Logger } from '../../log.js';
import { ensureTopics } from './kafka-topics.js';

/** One entry of the directory topic: its key, and its value as JSON text, or null to remove the key. */
export interface DirectoryRecord {
  key: string;
  value: string | null;
}

export interface DirectoryLogOptions {
  brokers: string[];
  /** The cluster's namespace (GATEWAY_KAFKA_NAMESPACE), not a shard's: every core shares the topic. */
  namespace: string;
  replicationFactor?: number;
}

export const DIRECTORY_TOPIC = 'gateway.directory';

/**
 * The cluster's directory as a compacted Kafka topic of one partition: one total order of every
 * change, one record per key (compaction keeps the latest of each, and drops removed keys), written
 * with acknowledgements from every in-sync replica. Each reader reads it whole from the start, with
 * a consumer group of its own that commits nothing, and then follows it.
 */
export class KafkaDirectoryLog {
  private readonly kafka: Kafka;
  private readonly topic: string;
  private producer: Producer | null = null;
  private readonly consumers = new Set<Consumer>();

  constructor(
    private readonly options: DirectoryLogOptions,
    private readonly logger: Logger,
  ) {
    this.kafka = kafkaClient(
      { clientId: 'gateway-directory', brokers: options.brokers },
      logger.child({ component: 'kafkajs', topic: DIRECTORY_TOPIC }),
    );
    this.topic = `${options.namespace}${DIRECTORY_TOPIC}`;
  }

  /** Creates the topic when it is missing. */
  ensureTopic(): Promise<void> {
    return ensureTopics(this.kafka, [
      {
        topic: this.topic,
        numPartitions: 1,
        replicationFactor: this.options.replicationFactor ?? 1,
        configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
      },
    ]);
  }

  /** Resolves once every in-sync replica holds the records, in their order. */
  async publish(records: readonly DirectoryRecord[]): Promise<void> {
    if (this.producer === null) {
      const producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      this.producer = producer;
    }
    try {
      await this.producer.send({
        topic: this.topic,
        acks: -1,
        messages: records.map(({ key, value }) => ({ key, value })),
      });
    } catch (error) {
      // A producer whose send failed may be in a state it cannot leave: the next publish makes another.
      const failed = this.producer;
      this.producer = null;
      await failed.disconnect().catch(() => {});
      throw error;
    }
  }

  /**
   * Reads the topic from its start and then follows it, handing each batch of records to `apply` in
   * order. `caughtUp` resolves once everything the topic held at the call has been applied.
   */
  async follow(
    apply: (records: DirectoryRecord[]) => void,
  ): Promise<{ caughtUp: Promise<void>; stop(): Promise<void> }> {
    const admin = this.kafka.admin();
    await admin.connect();
    const ends = await admin.fetchTopicOffsets(this.topic).finally(() => admin.disconnect());
    const end = Number(ends.find((p) => p.partition === 0)?.high ?? '0');
    let reached: () => void = () => {};
    const caughtUp = new Promise<void>((resolve) => (reached = resolve));
    if (end === 0) reached();

    const consumer = this.kafka.consumer({
      groupId: `${this.options.namespace}gateway.directory-reader.${randomUUID()}`,
    });
    this.consumers.add(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [this.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat }) => {
        apply(
          batch.messages.map((m) => ({
            key: m.key?.toString() ?? '',
            value: m.value === null ? null : m.value.toString(),
          })),
        );
        const last = batch.messages.at(-1);
        if (last !== undefined && Number(last.offset) + 1 >= end) reached();
        await heartbeat();
      },
    });
    return {
      caughtUp,
      stop: async () => {
        this.consumers.delete(consumer);
        await consumer.disconnect();
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((consumer) => consumer.disconnect()));
    this.consumers.clear();
    await this.producer?.disconnect();
    this.producer = null;
    this.logger.debug({ topic: this.topic }, 'directory log closed');
  }
}
