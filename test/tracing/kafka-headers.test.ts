// What a stream message carries on Kafka with tracing off and with a trace context: the headers
// of the records as the broker stores them, read by a plain kafkajs consumer, for messages alone in
// a record and packed several to a record (src/streams/kafka/kafka-records.ts).
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { describe, expect, inject, it } from 'vitest';
import { KafkaStreamBus } from '../../src/streams/kafka/kafka-stream.js';
import { isTracing } from '../../src/tracing/tracer.js';
import { eventually, memoryLogger } from '../helpers/wait.js';

describe('Kafka message headers', () => {
  it('carries message-id and not-before only while tracing is off, and a given traceparent, in headers or packed entries', async () => {
    expect(isTracing()).toBe(false);
    const brokers = inject('kafkaBrokers').split(',');
    const namespace = `headers-${Date.now()}-`;
    const bus = new KafkaStreamBus({ brokers, namespace, clientId: 'headers' }, memoryLogger().logger);
    const kafka = new Kafka({ brokers, clientId: 'headers-reader', logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `${namespace}reader` });
    const seen: KafkaMessage[] = [];
    try {
      await bus.ensureStreams([{ name: 'traced', partitions: 1 }]);
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      await bus.publish('traced', [
        { key: 'k', id: 'plain', value: { n: 1 }, notBefore: 1 },
        { key: 'k', id: 'with-context', value: { n: 2 }, notBefore: 2, traceparent },
      ]);
      // The producer has placed messages in the topic, so it knows its partitions: the next publish packs.
      await bus.publish('traced', [
        { key: 'k', id: 'packed-plain', value: { n: 3 }, notBefore: 3 },
        { key: 'k', id: 'packed-with-context', value: { n: 4 }, notBefore: 4, traceparent },
      ]);
      await consumer.connect();
      await consumer.subscribe({ topics: [`${namespace}traced`], fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(message) });
      await eventually('the three records read', () => seen.length === 3, 60_000);
      const headers = (message: KafkaMessage) =>
        Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]));
      expect(headers(seen[0]!)).toEqual({ 'message-id': 'plain', 'not-before': '1' });
      expect(headers(seen[1]!)).toEqual({ 'message-id': 'with-context', 'not-before': '2', traceparent });
      expect(headers(seen[2]!)).toEqual({ packed: '2' });
      expect(JSON.parse(String(seen[2]!.value))).toEqual([
        { key: 'k', id: 'packed-plain', not_before: 3, value: { n: 3 } },
        { key: 'k', id: 'packed-with-context', not_before: 4, traceparent, value: { n: 4 } },
      ]);
      // The consumer side hands the context on with the message.
      const received: { id: string; traceparent: string | undefined }[] = [];
      const subscription = bus.subscribe({
        stream: 'traced',
        group: 'g',
        handler: async (m) => void received.push({ id: m.id, traceparent: m.traceparent }),
      });
      await eventually('the four messages consumed', () => received.length === 4, 60_000);
      await subscription.stop();
      expect(received).toEqual([
        { id: 'plain', traceparent: undefined },
        { id: 'with-context', traceparent },
        { id: 'packed-plain', traceparent: undefined },
        { id: 'packed-with-context', traceparent },
      ]);
    } finally {
      await consumer.disconnect();
      await bus.close();
    }
  }, 120_000);
});
