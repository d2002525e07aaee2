// The publisher's answer to a producer the broker no longer accepts, driven with the errors kafkajs
// raises for it: the producer is closed, a new one (a new producer id) sends the same batch again,
// before anything published later. The real broker's side is in test/faults (npm run faults).
import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  type Kafka,
  type Producer,
  type ProducerConfig,
  type TopicMessages,
} from 'kafkajs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../log.js';
import { KafkaClientHealth } from './kafka-health.js';
import { KafkaNames } from './kafka-offsets.js';
import { KafkaPublisher } from './kafka-producer.js';
import { systemClock } from '../stream.js';

/** The broker's answer as kafkajs raises it (src/protocol/error.js builds it from the error code). */
function brokerRefusal(type: string, code: number): KafkaJSProtocolError {
  return new KafkaJSProtocolError({
    type,
    code,
    retriable: false,
    message: `broker answered ${type}`,
  } as unknown as Error);
}

/** One kafkajs producer as the publisher uses it: what it sent, whether it was closed, and its scripted failures. */
class FakeProducer {
  readonly sent: { topic: string; keys: string[] }[][] = [];
  disconnected = false;
  constructor(
    readonly serial: number,
    private readonly failures: unknown[],
    private readonly connecting: Promise<void>,
  ) {}
  async connect(): Promise<void> {
    await this.connecting;
  }
  async disconnect(): Promise<void> {
    this.disconnected = true;
  }
  async sendBatch({ topicMessages }: { topicMessages: TopicMessages[] }): Promise<void> {
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure as Error;
    this.sent.push(topicMessages.map((t) => ({ topic: t.topic, keys: t.messages.map((m) => String(m.key)) })));
  }
}

/** A kafkajs client whose n-th producer fails its first sends with `failuresOf(n)` and connects once `connectOf(n)` resolves. */
function fakeKafka(
  failuresOf: (serial: number) => unknown[],
  connectOf: (serial: number) => Promise<void> = async () => {},
) {
  const producers: FakeProducer[] = [];
  const kafka = {
    producer: () => {
      const serial = producers.length + 1;
      const producer = new FakeProducer(serial, failuresOf(serial), connectOf(serial));
      producers.push(producer);
      return producer as unknown as Producer;
    },
  } as unknown as Kafka;
  return { kafka, producers };
}

function publisherOf(kafka: Kafka, lingerMs = 0) {
  const logger = createLogger('silent');
  const health = new KafkaClientHealth(logger);
  return {
    publisher: new KafkaPublisher(kafka, new KafkaNames({ namespace: 'ns.' }), systemClock, health, logger, lingerMs),
    health,
  };
}

const message = (key: string) => ({ key, id: `id-${key}`, value: { key } });

describe('KafkaPublisher with a producer the broker refuses', () => {
  it.each([
    ['OUT_OF_ORDER_SEQUENCE_NUMBER', 45],
    ['INVALID_PRODUCER_EPOCH', 47],
    ['UNKNOWN_PRODUCER_ID', 59],
    ['INVALID_PRODUCER_ID_MAPPING', 49],
    ['PRODUCER_FENCED', 90],
  ])(
    'closes the producer on %s, sends the same batch through a new one, and shows it while it happens',
    async (type, code) => {
      let connectSecond: () => void = () => {};
      const secondConnects = new Promise<void>((resolve) => (connectSecond = resolve));
      const { kafka, producers } = fakeKafka(
        (n) => (n === 1 ? [brokerRefusal(type, code)] : []),
        (n) => (n === 2 ? secondConnects : Promise.resolve()),
      );
      const { publisher, health } = publisherOf(kafka);

      const published = publisher.publish('gateway.attempts', [message('a1'), message('a2')]);
      await until(() => producers.length === 2);
      // The new producer is connecting: the old one is closed, and the bus shows the replacement.
      expect(producers[0]!.disconnected).toBe(true);
      expect(health.snapshot()).toEqual({
        recovering: [{ client: 'producer', name: 'publisher', since: expect.any(Number), reason: type }],
        recreated: { producer: 1, consumer: 0 },
      });
      connectSecond();
      await published;
      expect(producers[0]!.sent).toEqual([]);
      expect(producers[1]!.sent).toEqual([[{ topic: 'ns.gateway.attempts', keys: ['a1', 'a2'] }]]);
      expect(producers[1]!.disconnected).toBe(false);
      expect(health.snapshot()).toEqual({ recovering: [], recreated: { producer: 1, consumer: 0 } });
    },
  );

  it('finds the refusal inside the errors kafkajs wraps it in', async () => {
    const wrapped = new KafkaJSNonRetriableError(brokerRefusal('OUT_OF_ORDER_SEQUENCE_NUMBER', 45));
    Object.assign(wrapped, { cause: brokerRefusal('OUT_OF_ORDER_SEQUENCE_NUMBER', 45) });
    const { kafka, producers } = fakeKafka((n) => (n === 1 ? [wrapped] : []));
    const { publisher } = publisherOf(kafka);
    await publisher.publish('s', [message('k')]);
    expect(producers.map((p) => p.sent.length)).toEqual([0, 1]);
  });

  it('sends the refused batch before the publishes made while it was refused, in call order', async () => {
    let refuse: (error: unknown) => void = () => {};
    const { kafka, producers } = fakeKafka(() => []);
    const { publisher } = publisherOf(kafka);
    await publisher.publish('s', [message('k1')]);
    expect(producers[0]!.sent).toEqual([[{ topic: 'ns.s', keys: ['k1'] }]]);
    // The next send is on its way and will be refused: the publish after it queues behind it.
    const refusal = new Promise<void>((_, reject) => (refuse = reject));
    producers[0]!.sendBatch = async () => refusal;
    const second = publisher.publish('s', [message('k2')]);
    const third = publisher.publish('s', [message('k3')]);
    refuse(brokerRefusal('OUT_OF_ORDER_SEQUENCE_NUMBER', 45));
    await Promise.all([second, third]);
    expect(producers[1]!.sent).toEqual([[{ topic: 'ns.s', keys: ['k2'] }], [{ topic: 'ns.s', keys: ['k3'] }]]);
  });

  it('gives up after three new producers were refused too, closing each, so the caller retries later', async () => {
    const refused = brokerRefusal('UNKNOWN_PRODUCER_ID', 59);
    const { kafka, producers } = fakeKafka((n) => (n <= 4 ? [refused] : []));
    const { publisher, health } = publisherOf(kafka);
    await expect(publisher.publish('s', [message('k')])).rejects.toBe(refused);
    expect(producers).toHaveLength(4);
    expect(producers.every((p) => p.disconnected)).toBe(true);
    expect(health.snapshot().recreated.producer).toBe(4);
    // The next publish gets a fifth producer, which the broker accepts.
    await publisher.publish('s', [message('k')]);
    expect(producers[4]!.sent).toEqual([[{ topic: 'ns.s', keys: ['k'] }]]);
    expect(health.snapshot().recovering).toEqual([]);
  });

  it('closes a producer whose send failed for any other reason, so the next publish never reuses its sequence numbers', async () => {
    // kafkajs gave up on the batch after its retries (the broker away); it may have been appended.
    const gaveUp = new KafkaJSNumberOfRetriesExceeded(
      new KafkaJSConnectionError('Connection error: connect ECONNREFUSED'),
      { retryCount: 8, retryTime: 1000 },
    );
    const { kafka, producers } = fakeKafka((n) => (n === 1 ? [gaveUp] : []));
    const { publisher, health } = publisherOf(kafka);
    await expect(publisher.publish('s', [message('k1')])).rejects.toBe(gaveUp);
    expect(producers).toHaveLength(1);
    expect(producers[0]!.disconnected).toBe(true);
    expect(health.snapshot().recovering.map((r) => r.client)).toEqual(['producer']);
    await publisher.publish('s', [message('k1')]);
    expect(producers[1]!.sent).toEqual([[{ topic: 'ns.s', keys: ['k1'] }]]);
    expect(health.snapshot()).toEqual({ recovering: [], recreated: { producer: 1, consumer: 0 } });
  });
});

describe('KafkaPublisher packing', () => {
  it('packs the messages of publishes made while a send was on its way into one record per partition, in call order', async () => {
    const sent: TopicMessages[][] = [];
    let release: () => void = () => {};
    const kafka = {
      producer: ({ createPartitioner }: ProducerConfig) => ({
        connect: async () => {},
        disconnect: async () => {},
        // As kafkajs does: every message placed by the partitioner, here in a topic of one partition.
        sendBatch: async ({ topicMessages }: { topicMessages: TopicMessages[] }) => {
          const place = createPartitioner!();
          for (const { topic, messages } of topicMessages)
            for (const m of messages)
              place({
                topic,
                partitionMetadata: [{ partitionErrorCode: 0, partitionId: 0, leader: 0, replicas: [0], isr: [0] }],
                message: m,
              });
          sent.push(topicMessages);
          if (sent.length === 2) await new Promise<void>((resolve) => (release = resolve));
        },
      }),
    } as unknown as Kafka;
    const { publisher } = publisherOf(kafka);
    await publisher.publish('gateway.attempts', [message('first')]);
    const held = publisher.publish('gateway.attempts', [message('held')]);
    await until(() => sent.length === 2);
    const queued = [
      publisher.publish('gateway.attempts', [message('q1')]),
      publisher.publish('gateway.attempts', [message('q2'), message('q3')]),
    ];
    release();
    await Promise.all([held, ...queued]);
    expect(sent.map((send) => send.map((t) => t.messages.map((m) => m.headers?.packed ?? m.key)))).toEqual([
      [['first']],
      [['held']],
      [['3']],
    ]);
    expect(JSON.parse(String(sent[2]![0]!.messages[0]!.value)).map((entry: { id: string }) => entry.id)).toEqual([
      'id-q1',
      'id-q2',
      'id-q3',
    ]);
  });
});

describe('KafkaPublisher with a linger', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds a publish for the linger, so the publishes of that time share its request', async () => {
    const { kafka, producers } = fakeKafka(() => []);
    const { publisher } = publisherOf(kafka, 5);
    const first = publisher.publish('s', [message('k1')]);
    await vi.advanceTimersByTimeAsync(4);
    expect(producers).toHaveLength(0);
    const second = publisher.publish('s', [message('k2')]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all([first, second]);
    // One request for both; without the linger the first would have gone alone.
    expect(producers).toHaveLength(1);
    expect(producers[0]!.sent).toHaveLength(1);
    expect(producers[0]!.sent[0]!.map((t) => t.topic)).toEqual(['ns.s']);
  });

  it('sends a queue that fills a request at once, without waiting for the linger', async () => {
    const { kafka, producers } = fakeKafka(() => []);
    const { publisher } = publisherOf(kafka, 5);
    const many = Array.from({ length: 100 }, (_, n) => message(`k${n}`));
    await publisher.publish('s', many);
    expect(producers[0]!.sent).toHaveLength(1);
  });

  it('fails the publishes still lingering when closed, and connects no producer for them', async () => {
    const { kafka, producers } = fakeKafka(() => []);
    const { publisher } = publisherOf(kafka, 5);
    const published = publisher.publish('s', [message('k1')]);
    const outcome = expect(published).rejects.toThrow('the Kafka publisher is closed');
    await publisher.close();
    await outcome;
    await vi.advanceTimersByTimeAsync(10);
    expect(producers).toHaveLength(0);
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}
