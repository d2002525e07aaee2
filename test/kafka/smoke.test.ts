// Smoke test against the real Kafka broker started by test/global-setup.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Kafka, Partitioners, logLevel, type Admin, type Consumer, type Producer } from 'kafkajs';

interface Received {
  key: string;
  value: string;
  partition: number;
  offset: bigint;
}

describe('kafka test broker', () => {
  const brokers = inject('kafkaBrokers').split(',');
  const suffix = randomUUID();
  const topic = `smoke-${suffix}`;
  const groupId = `smoke-group-${suffix}`;

  const kafka = new Kafka({ clientId: 'gateway-smoke-test', brokers, logLevel: logLevel.ERROR });
  let admin: Admin | undefined;
  let producer: Producer | undefined;
  let consumer: Consumer | undefined;

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
  });

  afterAll(async () => {
    await Promise.allSettled([consumer?.disconnect(), producer?.disconnect()]);
    if (admin) {
      await admin.deleteTopics({ topics: [topic] }).catch(() => {});
      await admin.disconnect();
    }
  });

  it('creates a topic, produces keyed messages and consumes them in per-key order', async () => {
    const created = await admin!.createTopics({
      topics: [{ topic, numPartitions: 3, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    expect(created).toBe(true);
    const [meta] = (await admin!.fetchTopicMetadata({ topics: [topic] })).topics;
    expect(meta?.partitions).toHaveLength(3);

    const sent = [
      { key: 'order-1', value: 'created' },
      { key: 'order-2', value: 'created' },
      { key: 'order-1', value: 'paid' },
    ];

    producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    for (const message of sent) {
      // One send per message so per-key ordering is established by the broker offsets.
      await producer.send({ topic, acks: -1, messages: [message] });
    }

    consumer = kafka.consumer({ groupId });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });

    const received: Received[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out; received ${received.length}/${sent.length} messages`)),
        20_000,
      );
      consumer!
        .run({
          eachMessage: async ({ partition, message }) => {
            received.push({
              key: message.key?.toString() ?? '',
              value: message.value?.toString() ?? '',
              partition,
              offset: BigInt(message.offset),
            });
            if (received.length >= sent.length) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch((err: unknown) => {
          clearTimeout(timer);
          reject(err);
        });
    });

    // Exactly the produced messages (order across partitions is not defined).
    const asPairs = (ms: { key: string; value: string }[]) => ms.map((m) => `${m.key}=${m.value}`).sort();
    expect(asPairs(received)).toEqual(asPairs(sent));

    // Same key -> same partition, in production order.
    const order1 = received.filter((m) => m.key === 'order-1');
    expect(order1.map((m) => m.value)).toEqual(['created', 'paid']);
    expect(new Set(order1.map((m) => m.partition)).size).toBe(1);
    expect(order1[0]!.offset).toBeLessThan(order1[1]!.offset);
  });
});
