import net from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { KafkaStreamBus } from '../../src/streams/kafka-stream.js';
import { eventually, memoryLogger } from '../pipeline/wait.js';
import { streamConformance } from './conformance.js';

// Against the real broker of test/global-setup.ts; every test uses its own topics and groups.
streamConformance(
  'Kafka',
  async (clock) => {
    const bus = new KafkaStreamBus({ brokers: inject('kafkaBrokers').split(','), clock, clientId: 'conformance' }, memoryLogger().logger);
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
    const bus = new KafkaStreamBus({ brokers: [`127.0.0.1:${relayPort}`], namespace, clientId: 'start-test', connectionRetries: 0 }, logger);
    const publisher = new KafkaStreamBus({ brokers: inject('kafkaBrokers').split(','), namespace, clientId: 'start-test-publisher' }, memoryLogger().logger);
    const relay = net.createServer((client) => {
      const upstream = net.connect(Number(port), host);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    try {
      await publisher.ensureStreams([{ name: 'unreachable', partitions: 1 }]);
      const received: unknown[] = [];
      const subscription = bus.subscribe({ stream: 'unreachable', group: 'g', handler: async (m) => void received.push(m.value) });
      await eventually('a failed start logged', () => text().includes('kafka consumer failed to start; trying again'), 30_000);
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
