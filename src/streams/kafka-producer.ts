import { Partitioners, type Kafka, type Message, type Producer } from 'kafkajs';
import type { KafkaNames } from './kafka-offsets.js';
import type { Clock, OutgoingMessage } from './stream.js';
import { traceparentOf } from '../tracing/tracer.js';

/** Publishes of one `publish` call waiting for the next send, with the caller's promise. */
interface QueuedPublish {
  topic: string;
  messages: Message[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Publishing to the stream topics through one idempotent producer that waits for all in-sync
 * replicas (acks -1). The producer connects at the first publish; a failed connect is tried again
 * at the next one.
 */
export class KafkaPublisher {
  private producer: Promise<Producer> | undefined;
  private readonly outgoing: QueuedPublish[] = [];
  private sending = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly names: KafkaNames,
    private readonly clock: Clock,
  ) {}

  /**
   * Resolves once the broker acknowledged the messages (acks from all in-sync replicas). Publishes
   * made while a send is on its way go out together in the next one (one request for all of them,
   * in call order per topic): the idempotent producer has one request in flight at a time, so
   * without this every publish would wait a round trip behind the previous one.
   */
  publish(stream: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    // The trace context travels in a W3C `traceparent` header, only while tracing is on.
    const active = traceparentOf();
    const encoded = messages.map((m) => {
      const traceparent = m.traceparent ?? active;
      const headers: Record<string, string> = { 'message-id': m.id, 'not-before': String(m.notBefore ?? this.clock.now()) };
      if (traceparent !== undefined) headers.traceparent = traceparent;
      return { key: m.key, value: JSON.stringify(m.value), headers };
    });
    return new Promise<void>((resolve, reject) => {
      this.outgoing.push({ topic: this.names.topic(stream), messages: encoded, resolve, reject });
      if (!this.sending) void this.sendQueued();
    });
  }

  /** Disconnects the producer if one was started (a producer that failed to connect is skipped). */
  async close(): Promise<void> {
    const producer = await this.producer?.catch(() => undefined);
    await producer?.disconnect().catch(() => {});
    this.producer = undefined;
  }

  /** Sends the queue in one sendBatch per round until it is empty; each caller learns its batch's outcome. */
  private async sendQueued(): Promise<void> {
    this.sending = true;
    try {
      while (this.outgoing.length > 0) {
        const batch = this.outgoing.splice(0);
        const byTopic = new Map<string, Message[]>();
        for (const item of batch) {
          const list = byTopic.get(item.topic) ?? [];
          list.push(...item.messages);
          byTopic.set(item.topic, list);
        }
        try {
          const producer = await this.connectedProducer();
          await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })) });
          batch.forEach((item) => item.resolve());
        } catch (error) {
          batch.forEach((item) => item.reject(error));
        }
      }
    } finally {
      this.sending = false;
    }
  }

  private connectedProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await producer.connect();
      return producer;
    })().catch((error: unknown) => {
      this.producer = undefined;
      throw error;
    });
    return this.producer;
  }
}
