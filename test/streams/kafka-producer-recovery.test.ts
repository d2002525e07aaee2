// The failure behind a producer stuck for good, made on purpose against the real broker: a batch
// the broker appends while the publisher never hears back (the connection drops before the answer),
// so that kafkajs gives up on it and takes its sequence numbers back. A producer kept after that
// reuses the numbers: its next batch of the same size is taken by the broker for a duplicate and
// silently dropped, and any other batch is refused as out of order, for good. The publisher closes
// a producer whose send failed, so every later publish is appended.
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { KafkaClientHealth } from '../../src/streams/kafka/kafka-health.js';
import { KafkaNames, KafkaTopicAdmin } from '../../src/streams/kafka/kafka-offsets.js';
import { KafkaPublisher } from '../../src/streams/kafka/kafka-producer.js';
import { decodeRecord } from '../../src/streams/kafka/kafka-records.js';
import { systemClock } from '../../src/streams/stream.js';
import { eventually, memoryLogger } from '../helpers/wait.js';

const PRODUCE = 0;

/**
 * A TCP relay to the broker that, once armed, lets Produce requests reach the broker and drops
 * the connection when the broker's answer to one comes back, instead of passing the answer on.
 */
class AnswerDroppingRelay {
  /** Produce requests still to drop the answer of. */
  dropAnswers = 0;
  dropped = 0;
  private readonly server: net.Server;

  constructor(private readonly broker: { host: string; port: number }) {
    this.server = net.createServer((client) => this.relay(client));
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.broker.port, this.broker.host);
    const doomed = new Set<number>(); // correlation ids of the Produce requests whose answer is dropped
    let fromClient = Buffer.alloc(0);
    let fromBroker = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      fromClient = Buffer.concat([fromClient, chunk]);
      for (let frame; (frame = nextFrame(fromClient)) !== null;) {
        fromClient = fromClient.subarray(frame.length);
        // Request header: size, api key (int16), api version (int16), correlation id (int32).
        if (frame.readInt16BE(4) === PRODUCE && this.dropAnswers > 0) {
          this.dropAnswers -= 1;
          doomed.add(frame.readInt32BE(8));
        }
        upstream.write(frame);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      fromBroker = Buffer.concat([fromBroker, chunk]);
      for (let frame; (frame = nextFrame(fromBroker)) !== null;) {
        fromBroker = fromBroker.subarray(frame.length);
        // Response header: size, correlation id. The broker appended the batch and said so.
        if (doomed.has(frame.readInt32BE(4))) {
          this.dropped += 1;
          client.destroy();
          upstream.destroy();
          return;
        }
        client.write(frame);
      }
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  }
}

function nextFrame(buffer: Buffer): Buffer | null {
  if (buffer.length < 4) return null;
  const size = buffer.readInt32BE(0);
  return buffer.length < 4 + size ? null : buffer.subarray(0, 4 + size);
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A publisher on the test broker whose every connection goes through an AnswerDroppingRelay. */
async function publisherBehindRelay() {
  const brokers = inject('kafkaBrokers');
  const [host, port] = brokers.split(',')[0]!.split(':');
  const relay = new AnswerDroppingRelay({ host: host!, port: Number(port) });
  const relayed = Number((await relay.listen()).split(':')[1]);
  cleanups.push(() => relay.close());
  // The broker advertises its own address: the socket factory sends every connection to the relay.
  const kafka = new Kafka({
    clientId: 'recovery',
    brokers: [brokers.split(',')[0]!],
    logLevel: logLevel.NOTHING,
    // One retry: kafkajs sends the batch twice and gives up, as it does after a longer outage.
    retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 1_000 },
    socketFactory: ({ onConnect }) => net.connect({ host: '127.0.0.1', port: relayed }, onConnect),
  });
  const names = new KafkaNames({ namespace: `recovery-${randomUUID().slice(0, 8)}-` });
  const log = memoryLogger();
  const health = new KafkaClientHealth(log.logger);
  const publisher = new KafkaPublisher(kafka, names, systemClock, health, log.logger);
  cleanups.push(() => publisher.close());
  await new KafkaTopicAdmin(kafka, names, {}).ensureStreams([{ name: 'records', partitions: 1 }]);
  const topic = () => topicIds(brokers, names.topic('records'));
  return { relay, publisher, health, log, topic };
}

const record = (n: number) => ({ key: 'k', id: `m${n}`, value: { n } });

describe('KafkaPublisher after a batch the broker appended but never confirmed', () => {
  it('appends the next publish of the same size, which a kept producer would see dropped as a duplicate', async () => {
    const { relay, publisher, health, log, topic } = await publisherBehindRelay();
    await publisher.publish('records', [record(1)]);
    relay.dropAnswers = 2;
    await expect(publisher.publish('records', [record(2)])).rejects.toThrow();
    expect(relay.dropped).toBe(2);
    await publisher.publish('records', [record(3)]);
    // Read straight from the broker: m2 too, appended though its publish failed (the caller sends it again).
    expect(await topic()).toEqual(['m1', 'm2', 'm3']);
    expect(health.snapshot()).toEqual({ recovering: [], recreated: { producer: 1, consumer: 0 } });
    expect(log.text()).toContain('kafka producer closed and recreated');
  }, 60_000);

  it('appends the next publishes of another size, which a kept producer would see refused as out of order for good', async () => {
    const { relay, publisher, health, topic } = await publisherBehindRelay();
    await publisher.publish('records', [record(1)]);
    relay.dropAnswers = 2;
    await expect(publisher.publish('records', [record(2)])).rejects.toThrow();
    for (let n = 3; n < 9; n += 2) await publisher.publish('records', [record(n), record(n + 1)]);
    expect(await topic()).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8']);
    expect(health.snapshot().recreated.producer).toBe(1);
  }, 60_000);
});

/** The message ids of a one-partition topic, in offset order: every record up to its end offset now. */
async function topicIds(brokers: string, topic: string): Promise<string[]> {
  const kafka = new Kafka({ clientId: 'recovery-reader', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const end = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
  expect(end).toHaveLength(1);
  const high = Number(end[0]!.high);
  const consumer = kafka.consumer({ groupId: `reader-${randomUUID()}` });
  const ids: string[] = [];
  let next = 0;
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        ids.push(...decodeRecord(topic, partition, message, 0).map((m) => m.id));
        next = Number(message.offset) + 1;
      },
    });
    await eventually(`the records of ${topic} up to offset ${high}`, () => next >= high);
  } finally {
    await consumer.disconnect();
  }
  return ids;
}
