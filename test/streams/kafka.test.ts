import net from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { KafkaStreamBus } from '../../src/streams/kafka/kafka-stream.js';
import { eventually, memoryLogger } from '../helpers/wait.js';
import { streamConformance } from './conformance.js';

// Against the real broker of test/global-setup.ts; every test uses its own topics and groups. The
// publishes linger as a daemon's do (GATEWAY_KAFKA_LINGER's default).
streamConformance(
  'Kafka',
  async (clock) => {
    const bus = new KafkaStreamBus(
      {
        brokers: inject('kafkaBrokers').split(','),
        clock,
        clientId: 'conformance',
        lingerMs: loadConfig({}).kafkaLingerMs,
      },
      memoryLogger().logger,
    );
    return { bus, close: () => bus.close() };
  },
  { leaseMs: 0 },
);

describe('Kafka consumer start', () => {
  it('keeps trying to start a consumer whose broker is unreachable, and consumes once it answers', async () => {
    const [host, port] = inject('kafkaBrokers').split(',')[0]!.split(':');
    // A bootstrap address where nothing listens yet; later a plain TCP relay to the real broker.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const relayPort = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const { logger, text } = memoryLogger();
    const namespace = `start-${Date.now()}-`;
    const bus = new KafkaStreamBus(
      { brokers: [`127.0.0.1:${relayPort}`], namespace, clientId: 'start-test', connectionRetries: 0 },
      logger,
    );
    const publisher = new KafkaStreamBus(
      { brokers: inject('kafkaBrokers').split(','), namespace, clientId: 'start-test-publisher' },
      memoryLogger().logger,
    );
    const relay = net.createServer((client) => {
      const upstream = net.connect(Number(port), host);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    try {
      await publisher.ensureStreams([{ name: 'unreachable', partitions: 1 }]);
      const received: unknown[] = [];
      const subscription = bus.subscribe({
        stream: 'unreachable',
        group: 'g',
        handler: async (m) => void received.push(m.value),
      });
      await eventually(
        'a failed start logged',
        () => text().includes('kafka consumer failed to start; trying again'),
        30_000,
      );
      await new Promise<void>((resolve) => relay.listen(relayPort, '127.0.0.1', resolve));
      await subscription.ready;
      await publisher.publish('unreachable', [{ key: 'k', id: 'm1', value: { n: 1 } }]);
      await eventually('consumed after the broker answered', () => received.length === 1, 60_000);
      expect(received).toEqual([{ n: 1 }]);
    } finally {
      await bus.close();
      await publisher.close();
      relay.close();
    }
  }, 120_000);
});

describe('Kafka batch subscription', () => {
  const brokers = () => inject('kafkaBrokers').split(',');

  it('hands runs of a partition in order, commits them once handled, and hands a run again after its handler threw', async () => {
    const namespace = `batches-${Date.now()}-`;
    const bus = new KafkaStreamBus({ brokers: brokers(), namespace, clientId: 'batches' }, memoryLogger().logger);
    try {
      await bus.ensureStreams([{ name: 'runs', partitions: 2 }]);
      const messages = Array.from({ length: 60 }, (_, n) => ({ key: `k${n % 3}`, id: `m${n}`, value: { n } }));
      await bus.publish('runs', messages);
      const seen: { key: string; n: number }[] = [];
      let calls = 0;
      let threw = false;
      const subscription = bus.subscribeBatches({
        stream: 'runs',
        group: 'g',
        maxBatch: 7,
        handler: async (run) => {
          calls += 1;
          expect(run.length).toBeLessThanOrEqual(7);
          if (!threw) {
            threw = true;
            throw new Error('store away');
          }
          for (const m of run) seen.push({ key: m.key, n: (m.value as { n: number }).n });
        },
      });
      await eventually('every message handled', () => seen.length === 60, 30_000);
      await subscription.drain();
      expect(calls).toBeGreaterThan(60 / 7);
      for (const key of ['k0', 'k1', 'k2']) {
        const ns = seen.filter((s) => s.key === key).map((s) => s.n);
        expect(ns).toEqual([...ns].sort((a, b) => a - b));
        expect(new Set(ns).size).toBe(20);
      }
      await expectOnlyWhatComesNext(bus, 'runs', 'k0', 60);
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('leaves a run that is in the handler when stopped uncommitted, so the next member gets it again', async () => {
    const namespace = `batches-stop-${Date.now()}-`;
    const bus = new KafkaStreamBus({ brokers: brokers(), namespace, clientId: 'batches-stop' }, memoryLogger().logger);
    try {
      await bus.ensureStreams([{ name: 'runs', partitions: 1 }]);
      await bus.publish('runs', [{ key: 'k', id: 'm1', value: { n: 1 } }]);
      let entered: () => void = () => {};
      const inHandler = new Promise<void>((resolve) => (entered = resolve));
      const first = bus.subscribeBatches({
        stream: 'runs',
        group: 'g',
        handler: () => (entered(), new Promise<void>(() => {})),
      });
      await inHandler;
      await first.stop();
      const again: number[] = [];
      const second = bus.subscribeBatches({
        stream: 'runs',
        group: 'g',
        handler: async (run) => void again.push(...run.map((m) => (m.value as { n: number }).n)),
      });
      await eventually('handed out again', () => again.includes(1), 30_000);
      await second.drain();
    } finally {
      await bus.close();
    }
  }, 60_000);
});

describe('Kafka packed records', () => {
  const brokers = () => inject('kafkaBrokers').split(',');
  /** A bus whose producer knows the topic's partitions (one message placed), so its publishes pack. */
  async function packingBus(name: string) {
    const namespace = `${name}-${Date.now()}-`;
    const bus = new KafkaStreamBus({ brokers: brokers(), namespace, clientId: name }, memoryLogger().logger);
    await bus.ensureStreams([{ name: 'packs', partitions: 1 }]);
    await bus.publish('packs', [{ key: 'warm', id: 'warm', value: { n: 0 } }]);
    return bus;
  }

  it('hands out again every message of a packed record while one of them was unfinished when its consumer stopped', async () => {
    const bus = await packingBus('packs-stop');
    try {
      await bus.publish(
        'packs',
        [1, 2, 3].map((n) => ({ key: `k${n}`, id: `m${n}`, value: { n } })),
      );
      const seenByDead: string[] = [];
      const dead = bus.subscribe({
        stream: 'packs',
        group: 'g',
        handler: (m) => {
          seenByDead.push(m.id);
          return m.id === 'm2' ? new Promise<void>(() => {}) : Promise.resolve();
        },
      });
      await eventually('the stopping consumer got every message', () => seenByDead.length === 4, 30_000);
      await dead.stop();
      const survivor: string[] = [];
      const next = bus.subscribe({ stream: 'packs', group: 'g', handler: async (m) => void survivor.push(m.id) });
      await eventually('the packed record handed out again', () => survivor.length === 3, 30_000);
      // The plain record before it was done and committed; the packed one comes again whole.
      expect(survivor).toEqual(['m1', 'm2', 'm3']);
      await next.drain();
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('delivers a send larger than one record batch may be, and a message larger than the broker default of 1 MB', async () => {
    const bus = await packingBus('packs-large');
    try {
      // 60 messages of 20 kB on one partition: 1.2 MB, which as one record batch the broker refuses for good.
      const text = 'x'.repeat(20_000);
      await bus.publish(
        'packs',
        Array.from({ length: 60 }, (_, n) => ({ key: `k${n % 3}`, id: `m${n + 1}`, value: { n: n + 1, text } })),
      );
      await bus.publish('packs', [{ key: 'k0', id: 'huge', value: { n: 61, text: 'é'.repeat(1_500_000) } }]);
      const received: { id: string; length: number }[] = [];
      const subscription = bus.subscribe({
        stream: 'packs',
        group: 'g',
        handler: async (m) =>
          void received.push({ id: m.id, length: (m.value as { text?: string }).text?.length ?? 0 }),
      });
      await eventually('every message consumed', () => received.length === 62, 60_000);
      await subscription.drain();
      // Every one once; keys run side by side, each in its order.
      for (const key of [0, 1, 2]) {
        const ids = Array.from({ length: 20 }, (_, i) => `m${i * 3 + key + 1}`);
        expect(received.filter((r) => ids.includes(r.id)).map((r) => r.id)).toEqual(ids);
      }
      expect(received.find((r) => r.id === 'huge')).toEqual({ id: 'huge', length: 1_500_000 });
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('hands a batch subscriber whole records, in order, and commits each once handled', async () => {
    const bus = await packingBus('packs-batches');
    try {
      await bus.publish(
        'packs',
        Array.from({ length: 10 }, (_, n) => ({ key: `k${n % 2}`, id: `m${n + 1}`, value: { n: n + 1 } })),
      );
      await bus.publish('packs', [{ key: 'k0', id: 'm11', value: { n: 11 } }]);
      const runs: number[][] = [];
      const first = bus.subscribeBatches({
        stream: 'packs',
        group: 'g',
        maxBatch: 4,
        handler: async (run) => void runs.push(run.map((m) => (m.value as { n: number }).n)),
      });
      await eventually('every message handled', () => runs.flat().length === 12, 30_000);
      await first.drain();
      // The warm-up and the message after the pack fit beside it in no run of 4: each record is a run.
      expect(runs).toEqual([[0], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [11]]);
      await expectOnlyWhatComesNext(bus, 'packs', 'k1', 12);
    } finally {
      await bus.close();
    }
  }, 60_000);
});

/**
 * Everything group `g` was handed is committed: a new batch member gets nothing but the message `n`
 * published once it joined.
 */
async function expectOnlyWhatComesNext(bus: KafkaStreamBus, stream: string, key: string, n: number): Promise<void> {
  const again: number[] = [];
  const next = bus.subscribeBatches({
    stream,
    group: 'g',
    handler: async (run) => void again.push(...run.map((m) => (m.value as { n: number }).n)),
  });
  await next.ready;
  await bus.publish(stream, [{ key, id: `m${n}`, value: { n } }]);
  await eventually('the next message handled', () => again.includes(n), 30_000);
  expect(again).toEqual([n]);
  await next.drain();
}
