import { type Kafka, type Producer, type TopicMessages } from 'kafkajs';
import type { Logger } from '../../log.js';
import { errorReason, fatalProducerError, type KafkaClientHealth } from './kafka-health.js';
import type { KafkaNames } from './kafka-offsets.js';
import { encodeMessage, encodeRecords, PartitionPlacer, splitRequests, type EncodedMessage } from './kafka-records.js';
import type { Clock, OutgoingMessage } from '../stream.js';
import { traceparentOf } from '../../tracing/tracer.js';

/** Publishes of one `publish` call waiting for the next send, with the caller's promise. */
interface QueuedPublish {
  topic: string;
  messages: EncodedMessage[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** The producer's name in /healthz and the logs: a bus has one. */
const PRODUCER = 'publisher';

/**
 * Messages queued that end a linger at once (Kafka's batch.size): a relay pass of a busy outbox
 * fills a request by itself, and waiting would only add to its latency.
 */
const FULL_REQUEST_MESSAGES = 100;

/** Times one batch is sent again at once, each time through a new producer, after fatal producer errors. */
const FATAL_RESENDS = 3;

/**
 * Publishing to the stream topics through one idempotent producer that waits for all in-sync
 * replicas (acks -1). The producer connects at the first publish; a failed connect is tried again
 * at the next one. A producer whose send failed is closed and the next send makes a new one (see
 * `send`), so no broken producer outlives the failure.
 */
export class KafkaPublisher {
  private producer: Promise<Producer> | undefined;
  private readonly outgoing: QueuedPublish[] = [];
  private sending = false;
  /** The linger of the publishes queued while no send is on its way. */
  private lingering: NodeJS.Timeout | undefined;
  /** Set by close: a publish after it (a timer of a stopping process) must not connect a new producer. */
  private closed = false;
  private readonly placer = new PartitionPlacer();

  constructor(
    private readonly kafka: Kafka,
    private readonly names: KafkaNames,
    private readonly clock: Clock,
    private readonly health: KafkaClientHealth,
    private readonly logger: Logger,
    /** How long a publish waits for others to share its request when no send is on its way (0: none). */
    private readonly lingerMs = 0,
  ) {}

  /**
   * Resolves once the broker acknowledged the messages (acks from all in-sync replicas). Publishes
   * made while a send is on its way go out together in the next one (one request for all of them,
   * in call order per topic): the idempotent producer has one request in flight at a time, so
   * without this every publish would wait a round trip behind the previous one. A publish made while
   * no send is on its way waits `lingerMs` for others to share its request, unless the queue already
   * fills one (FULL_REQUEST_MESSAGES). The messages of a
   * partition in one send are packed into records (kafka-records.ts); the producer's partitioner
   * is kafkajs's default one, through the placer that learns the partition counts packing needs.
   */
  publish(stream: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('the Kafka publisher is closed'));
    // The trace context (W3C `traceparent`) travels with each message only while tracing is on.
    const now = this.clock.now();
    const active = traceparentOf();
    const encoded = messages.map((m) => encodeMessage(m, now, active));
    return new Promise<void>((resolve, reject) => {
      this.outgoing.push({ topic: this.names.topic(stream), messages: encoded, resolve, reject });
      if (this.sending) return;
      if (this.lingerMs > 0 && this.queuedMessageCount() < FULL_REQUEST_MESSAGES) {
        this.lingering ??= setTimeout(() => void this.sendQueued(), this.lingerMs);
        return;
      }
      void this.sendQueued();
    });
  }

  /** Disconnects the producer if one was started (a producer that failed to connect is skipped). */
  async close(): Promise<void> {
    this.closed = true;
    // Publishes still lingering fail now rather than when their timer fires.
    if (this.lingering !== undefined) void this.sendQueued();
    const producer = await this.producer?.catch(() => undefined);
    await producer?.disconnect().catch(() => {});
    this.producer = undefined;
  }

  /** Messages of the publishes waiting for the next send (a few during a linger). */
  private queuedMessageCount(): number {
    let count = 0;
    for (const item of this.outgoing) count += item.messages.length;
    return count;
  }

  /** Sends the queue in one sendBatch per round until it is empty; each caller learns its batch's outcome. */
  private async sendQueued(): Promise<void> {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    this.sending = true;
    try {
      while (this.outgoing.length > 0) {
        if (this.closed) {
          const error = new Error('the Kafka publisher is closed');
          this.outgoing.splice(0).forEach((item) => item.reject(error));
          return;
        }
        const batch = this.outgoing.splice(0);
        const byTopic = new Map<string, EncodedMessage[]>();
        for (const item of batch) {
          const list = byTopic.get(item.topic) ?? [];
          list.push(...item.messages);
          byTopic.set(item.topic, list);
        }
        try {
          for (const request of this.requests(byTopic)) await this.send(request);
          batch.forEach((item) => item.resolve());
        } catch (error) {
          batch.forEach((item) => item.reject(error));
        }
      }
    } finally {
      this.sending = false;
    }
  }

  /**
   * The produce requests of one send, in order: each topic's records (packed per partition) split
   * so that no partition's part of a request passes the broker's limit (kafka-records.ts).
   */
  private requests(byTopic: Map<string, EncodedMessage[]>): TopicMessages[][] {
    const perTopic = [...byTopic].map(([topic, list]) => ({
      topic,
      parts: splitRequests(encodeRecords(topic, list, this.placer)),
    }));
    const count = Math.max(...perTopic.map((t) => t.parts.length));
    return Array.from({ length: count }, (_, n) =>
      perTopic.flatMap(({ topic, parts }) => (n < parts.length ? [{ topic, messages: parts[n]! }] : [])),
    );
  }

  /**
   * One sendBatch. After any failure the producer is closed and the next send makes a new one:
   * when kafkajs gives up on a batch it takes the batch's sequence numbers back, although the
   * broker may have appended it (a request written just before the connection dropped), and the
   * next batch would reuse those numbers and be refused as out of order, for good. A fatal
   * producer error (FATAL_PRODUCER_ERRORS) is answered at once by sending the same batch again
   * through the new producer, before any later batch, so nothing is lost and nothing of a key
   * overtakes it (a copy the old producer did get appended stays a duplicate with the same id).
   * Any other failure is the callers' to retry (the broker is away).
   */
  private async send(topicMessages: TopicMessages[]): Promise<void> {
    for (let resends = 0; ;) {
      const producer = await this.connectedProducer();
      try {
        await producer.sendBatch({ acks: -1, topicMessages });
        return;
      } catch (error) {
        const fatal = fatalProducerError(error);
        const reason = errorReason(error);
        this.health.recovering('producer', PRODUCER, reason);
        await this.discard(producer, reason);
        if (fatal === null || resends >= FATAL_RESENDS) throw error;
        resends += 1;
        this.logger.warn(
          { reason: fatal, resends, messages: topicMessages.reduce((n, t) => n + t.messages.length, 0) },
          'kafka producer refused; sending the batch again through a new producer',
        );
      }
    }
  }

  /** Closes a producer whose send failed; the next send connects a new one. */
  private async discard(producer: Producer, reason: string): Promise<void> {
    if (this.producer !== undefined && (await this.producer.catch(() => undefined)) === producer)
      this.producer = undefined;
    await producer.disconnect().catch(() => {});
    this.health.recreated('producer', PRODUCER, reason);
  }

  private connectedProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: this.placer.partitioner,
      });
      try {
        await producer.connect();
      } catch (error) {
        // Connected to the cluster but refused a producer id: its connections must not stay open.
        await producer.disconnect().catch(() => {});
        throw error;
      }
      // Connected means a new producer id from the broker: whatever broke the last one is behind it.
      this.health.recovered('producer', PRODUCER);
      return producer;
    })().catch((error: unknown) => {
      this.producer = undefined;
      this.health.recovering('producer', PRODUCER, errorReason(error));
      throw error;
    });
    return this.producer;
  }
}
