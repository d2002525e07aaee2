// The consumer of a broker destination in the benchmark, in its own process as the webhook
// receiver is: it makes where `count` companies' endpoints publish, reads every message there,
// verifies and records it as receiver.mjs does a webhook (arrivals.mjs), and answers the same IPC
// requests, so the waits of load.mjs work for every destination type. Driven by sinks.mjs.
//
//   node broker-sink.mjs kafka <count> <brokers>    one topic of 4 partitions; the company is the record key's first part
//   node broker-sink.mjs rabbitmq <count> <url>     a direct exchange and one durable queue; company <c> routes `c<c>`
//   node broker-sink.mjs sqs <count> <endpoint>     one standard queue, long-polled; the company is the event's company_id
//
// It answers `{type: 'ready', settings}` once the destinations exist: `settings[c]` is company
// <c>'s endpoint settings, as the API takes them under the type's name.
import { randomUUID } from 'node:crypto';
import amqplib from 'amqplib';
import { Kafka, logLevel } from 'kafkajs';
import { CreateQueueCommand, DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Arrivals, now } from './arrivals.mjs';

const [type, countArg, target] = process.argv.slice(2);
const count = Number(countArg);
const suffix = randomUUID().slice(0, 8);
const arrivals = new Arrivals();
/** Receive loops on the SQS queue: each takes at most 10 messages a request. */
const SQS_POLLERS = 4;
/** Kafka, SQS: company id (the record key's first part) → company index. */
let indexOfCompany = new Map();

/** Header values as strings, whatever the client gives (Kafka: Buffers). */
const stringsOf = (headers = {}) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

async function kafkaSink() {
  const topic = `bench-destination-${suffix}`;
  const kafka = new Kafka({ clientId: 'bench-sink', brokers: target.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 4, replicationFactor: 1 }], waitForLeaders: true });
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: `${topic}-reader`, maxWaitTimeInMs: 50 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      const at = now();
      for (const message of batch.messages) {
        const c = indexOfCompany.get(message.key?.toString('utf8').split(':')[0]) ?? -1;
        arrivals.record(c, message.value?.toString('utf8') ?? '', stringsOf(message.headers), at);
      }
    },
  });
  return {
    settings: Array.from({ length: count }, () => ({ brokers: target.split(','), topic })),
    close: () => consumer.disconnect(),
  };
}

async function rabbitmqSink() {
  const exchange = `bench-events-${suffix}`;
  const queue = `bench-sink-${suffix}`;
  const model = await amqplib.connect(target);
  const channel = await model.createChannel();
  await channel.assertExchange(exchange, 'direct', { durable: true });
  await channel.assertQueue(queue, { durable: true });
  for (let c = 0; c < count; c += 1) await channel.bindQueue(queue, exchange, `c${c}`);
  await channel.consume(
    queue,
    (message) => {
      if (message === null) return;
      const c = Number(message.fields.routingKey.slice(1));
      arrivals.record(c, message.content.toString('utf8'), stringsOf(message.properties.headers));
    },
    { noAck: true },
  );
  return {
    settings: Array.from({ length: count }, (_, c) => ({ url: target, exchange, routing_key: `c${c}` })),
    close: () => model.close(),
  };
}

/**
 * One standard queue for every company, read by a few long-polling loops: a queue per company cost
 * ElasticMQ and this reader more CPU per event than the daemon spent. The company is the event
 * object's `company_id` (every message and conversation event has it).
 */
async function sqsSink() {
  // The SDK's notice that its 2027 releases need Node 22 (the project runs 20), once per run: not about the measurement.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const credentials = { accessKeyId: 'bench', secretAccessKey: 'bench' };
  const client = new SQSClient({ region: 'elasticmq', endpoint: target, credentials, maxAttempts: 1 });
  const { QueueUrl: queueUrl } = await client.send(new CreateQueueCommand({ QueueName: `bench-${suffix}` }));
  let running = true;
  const poll = async () => {
    while (running) {
      const answer = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageAttributeNames: ['All'],
        }),
      );
      const messages = answer.Messages ?? [];
      if (messages.length === 0) continue;
      const at = now();
      for (const message of messages) {
        const headers = Object.fromEntries(
          Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, value.StringValue]),
        );
        const companyId = /"company_id":(\d+)/.exec(message.Body ?? '')?.[1];
        arrivals.record(indexOfCompany.get(companyId) ?? -1, message.Body ?? '', headers, at);
      }
      await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((m, n) => ({ Id: String(n), ReceiptHandle: m.ReceiptHandle })),
        }),
      );
    }
  };
  const polling = Array.from({ length: SQS_POLLERS }, poll);
  return {
    settings: Array.from({ length: count }, () => ({
      queue_url: queueUrl,
      region: 'elasticmq',
      access_key_id: 'AKIDBENCH',
      secret_access_key: 'bench-secret-value',
    })),
    async close() {
      running = false;
      await Promise.all(polling);
      client.destroy();
    },
  };
}

const sinks = { kafka: kafkaSink, rabbitmq: rabbitmqSink, sqs: sqsSink };
if (!(type in sinks)) throw new Error(`unknown destination type ${type}: kafka, rabbitmq or sqs`);
const sink = await sinks[type]();

process.on('message', async (message) => {
  if (message.type === 'stop') {
    await sink.close().catch(() => {});
    process.exit(0);
  }
  if (message.type === 'secrets' && message.companyIds)
    indexOfCompany = new Map(message.companyIds.map((id, c) => [String(id), c]));
  process.send(arrivals.answer(message));
});
process.send({ type: 'ready', settings: sink.settings });
