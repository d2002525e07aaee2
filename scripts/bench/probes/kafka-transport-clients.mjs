// The Kafka operations of kafka-transport.mjs through one client library, the same operations and
// requests whichever library does them, so the probe compares the libraries' cost alone:
//
//   createTopics(topics, partitions)   creates the topics and waits until every partition has a leader
//   producer()                         -> { send(topic, [{ partition, value }]), close() }: idempotent,
//                                         acks -1, one request in flight (a send waits for the one before)
//   consume(groupId, topic, onBatch)   -> { close() }: a group member reading from the beginning (or the
//                                         committed offset); onBatch(messages) gets what one fetch brought
//                                         of one partition (messages with a Buffer `value`), and that
//                                         batch's offset is committed once onBatch resolved
//   requests                           { produce, fetch, commit }: requests sent so far
//
// kafkajs: the node_modules one, with the gateway's mend of its idle timer loop as Kafka mode runs it
// (src/streams/kafka/idle-request-queue.ts) and the gateway's topic creation (kafka-topics.ts), both
// taken from dist/: needs a build.
// platformatic: @platformatic/kafka, not a dependency of the project, loaded from
// PLATFORMATIC_KAFKA_DIR (the package's folder, e.g. /tmp/pk/node_modules/@platformatic/kafka).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import kafkajs from 'kafkajs';
import { mendIdleRequestQueue } from '../../../dist/src/streams/kafka/idle-request-queue.js';
import { ensureTopics } from '../../../dist/src/streams/kafka/kafka-topics.js';

export const CLIENTS = ['kafkajs', 'platformatic'];

/** Throws unless every name is a known client whose library loads (before a run starts processes). */
export async function checkClients(names) {
  const unknown = names.filter((name) => !CLIENTS.includes(name));
  if (unknown.length > 0)
    throw new Error(`unknown transport clients ${unknown.join(', ')} (known: ${CLIENTS.join(', ')})`);
  if (names.includes('platformatic')) await loadPlatformatic();
}

/** The client named `name` for the brokers, with `id` as its client id. */
export async function transportClient(name, brokers, id) {
  if (name === 'kafkajs') return kafkajsClient(brokers, id);
  if (name === 'platformatic') return platformaticClient(await loadPlatformatic(), brokers, id);
  throw new Error(`unknown transport client "${name}" (one of ${CLIENTS.join(', ')})`);
}

function kafkajsClient(brokers, id) {
  mendIdleRequestQueue();
  const kafka = new kafkajs.Kafka({ clientId: id, brokers: [brokers], logLevel: kafkajs.logLevel.NOTHING });
  const requests = { produce: 0, fetch: 0, commit: 0 };
  return {
    requests,
    // As the gateway creates them: its wait for the leaders is tried again while the broker answers
    // that it does not host a new topic yet.
    createTopics: (topics, partitions) =>
      ensureTopics(
        kafka,
        topics.map((topic) => ({ topic, numPartitions: partitions })),
      ),
    async producer() {
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      return {
        send: (topic, messages) => {
          requests.produce += 1;
          return producer.send({ topic, acks: -1, messages });
        },
        close: () => producer.disconnect(),
      };
    },
    async consume(groupId, topic, onBatch) {
      const consumer = kafka.consumer({ groupId });
      consumer.on(consumer.events.FETCH, () => (requests.fetch += 1));
      consumer.on(consumer.events.COMMIT_OFFSETS, () => (requests.commit += 1));
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      // autoCommit (the default): kafkajs commits a batch's offset once eachBatch resolved.
      await consumer.run({ partitionsConsumedConcurrently: 6, eachBatch: ({ batch }) => onBatch(batch.messages) });
      return { close: () => consumer.disconnect() };
    },
  };
}

async function loadPlatformatic() {
  const dir = process.env.PLATFORMATIC_KAFKA_DIR;
  if (!dir)
    throw new Error(
      'the platformatic client needs PLATFORMATIC_KAFKA_DIR: the folder of an installed @platformatic/kafka ' +
        '(e.g. npm install @platformatic/kafka@1.35.0 in /tmp/pk, then /tmp/pk/node_modules/@platformatic/kafka)',
    );
  try {
    return await import(pathToFileURL(path.join(path.resolve(dir), 'dist/index.js')).href);
  } catch (error) {
    throw new Error(`@platformatic/kafka could not be loaded from PLATFORMATIC_KAFKA_DIR=${dir}`, { cause: error });
  }
}

function platformaticClient(pk, brokers, id) {
  const base = { clientId: id, bootstrapBrokers: [brokers] };
  const requests = { produce: 0, fetch: 0, commit: 0 };
  return {
    requests,
    async createTopics(topics, partitions) {
      const admin = new pk.Admin(base);
      await admin.createTopics({ topics, partitions, replicas: 1 });
      // createTopics answers before the partitions have leaders; the producer needs them.
      for (;;) {
        const metadata = await admin.metadata({ topics, forceUpdate: true }).catch(() => null);
        const led = topics.every((topic) =>
          metadata?.topics.get(topic)?.partitions.every((partition) => partition?.leader >= 0),
        );
        if (led) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await admin.close();
    },
    async producer() {
      // Idempotent means acks -1 (ALL) and one request in flight to a broker; sends are also
      // chained here, as kafkajs queues them, so each goes out once the one before was acknowledged.
      const producer = new pk.Producer({ ...base, idempotent: true, serializers: pk.stringSerializers });
      let last = Promise.resolve();
      return {
        send: (topic, messages) => {
          const records = messages.map(({ partition, value }) => ({ topic, partition, value }));
          last = last.then(() => {
            requests.produce += 1;
            return producer.send({ messages: records, acks: pk.ProduceAcks.ALL });
          });
          return last;
        },
        close: () => producer.close(),
      };
    },
    async consume(groupId, topic, onBatch) {
      const consumer = new pk.Consumer({
        ...base,
        groupId,
        autocommit: false,
        sessionTimeout: 30_000,
        heartbeatInterval: 3_000,
      });
      const stream = await consumer.consume({
        topics: [topic],
        mode: pk.MessagesStreamModes.COMMITTED,
        fallbackMode: 'earliest',
        autocommit: false,
      });
      stream.on('fetch', () => (requests.fetch += 1));
      // As kafkajs does, the next fetch waits until the batches of this one were handled: one
      // fetch's messages come as 'data' events in one go; the first pauses the stream (its fetch loop
      // stops, the rest of the fetch stays in the stream's buffer), the buffer is read out, each
      // partition's batch is handled and its next offset committed, side by side, then it resumes.
      let batches = null;
      let closing = false;
      const handle = async (partition, messages) => {
        await onBatch(messages);
        requests.commit += 1;
        const offset = messages.at(-1).offset + 1n;
        await consumer.commit({ offsets: [{ topic, partition, offset, leaderEpoch: -1 }] });
      };
      const handleFetched = async () => {
        while (stream.read() !== null); // each read emits 'data': gathered below
        const fetched = batches;
        batches = null;
        await Promise.all([...fetched].map(([partition, messages]) => handle(partition, messages)));
        stream.resume();
      };
      stream.on('data', (message) => {
        if (batches === null) {
          batches = new Map();
          stream.pause();
          queueMicrotask(() =>
            handleFetched().catch((error) => {
              if (closing) return;
              console.error(error);
              process.exit(1);
            }),
          );
        }
        const list = batches.get(message.partition);
        if (list === undefined) batches.set(message.partition, [message]);
        else list.push(message);
      });
      return {
        close: async () => {
          closing = true;
          await stream.close();
          await consumer.close();
        },
      };
    },
  };
}
