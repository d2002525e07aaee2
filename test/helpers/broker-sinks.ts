// Where the broker destination tests read what the gateway published: a Kafka topic (on the shared
// test broker or a private one), a RabbitMQ queue bound to an exchange (on a private node,
// test/helpers/rabbitmq.ts) or an SQS queue (test/helpers/elasticmq.ts), each message with the
// headers a consumer sees, in the order the broker keeps them.
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { connect, type Channel, type ChannelModel } from 'amqplib';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { eventually } from './wait.js';

export interface SinkMessage {
  /** The `webhook-id` header: the event's id. */
  id: string;
  headers: Record<string, string>;
  body: string;
  /** Kafka: the `content-type` header. RabbitMQ: the contentType property. SQS: the attribute. */
  contentType?: string;
  /** Kafka: the record key and partition. RabbitMQ: the messageId property. */
  key?: string;
  partition?: number;
  messageId?: string;
  /** SQS, a FIFO queue: the message's group and deduplication ids. */
  groupId?: string;
  deduplicationId?: string;
}

export interface BrokerSink {
  type: 'kafka' | 'rabbitmq' | 'sqs';
  /** The endpoint's settings, as the API takes them under its type's name. */
  settings: Record<string, unknown>;
  received: SinkMessage[];
  close(): Promise<void>;
}

/**
 * A fresh topic of 3 partitions on `brokers`, and a consumer reading it from its start. After the
 * broker was stopped and started again, `reconnect` reads the topic afresh from its start (a new
 * consumer group): `received` is then the topic's whole content again, in the broker's order.
 */
export async function kafkaSink(brokers: string[]): Promise<BrokerSink & { reconnect(): Promise<void> }> {
  const topic = `destination-${randomUUID().slice(0, 8)}`;
  const kafka = new Kafka({ clientId: 'destination-test', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: false });
  // A busy broker may still answer that it does not host a partition just after it made it.
  await eventually('the topic led on every partition', async () => {
    const meta = await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => null);
    const partitions = meta?.topics[0]?.partitions ?? [];
    return partitions.length === 3 && partitions.every((p) => p.leader >= 0);
  });
  await admin.disconnect();
  const received: SinkMessage[] = [];
  let readers = 0;
  const read = async (): Promise<Consumer> => {
    readers += 1;
    const consumer = kafka.consumer({ groupId: `${topic}-reader-${readers}` });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(message.headers ?? {})) headers[name] = String(value);
        received.push({
          id: headers['webhook-id'] ?? '',
          headers,
          body: message.value?.toString('utf8') ?? '',
          contentType: headers['content-type'],
          key: message.key?.toString('utf8'),
          partition,
        });
      },
    });
    return consumer;
  };
  let consumer = await read();
  return {
    type: 'kafka',
    settings: { brokers, topic },
    received,
    async reconnect() {
      await consumer.disconnect().catch(() => {});
      received.length = 0;
      consumer = await read();
    },
    async close() {
      await consumer.disconnect();
    },
  };
}

/**
 * A durable queue bound to a fresh direct exchange of the node at `url`, and a consumer reading it.
 * The consumer (and its connection) come back after the node was stopped and started again: call
 * `reconnect` once it runs.
 */
export async function rabbitmqSink(url: string): Promise<BrokerSink & { reconnect(): Promise<void> }> {
  const suffix = randomUUID().slice(0, 8);
  const exchange = `events-${suffix}`;
  const queue = `company-${suffix}`;
  const received: SinkMessage[] = [];
  let model: ChannelModel | null = null;
  const open = async () => {
    model = await connect(url);
    model.on('error', () => {});
    const channel: Channel = await model.createChannel();
    channel.on('error', () => {});
    await channel.assertExchange(exchange, 'direct', { durable: true });
    await channel.assertQueue(queue, { durable: true });
    await channel.bindQueue(queue, exchange, 'gateway');
    await channel.consume(queue, (message) => {
      if (message === null) return;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(message.properties.headers ?? {})) headers[name] = String(value);
      received.push({
        id: headers['webhook-id'] ?? '',
        headers,
        body: message.content.toString('utf8'),
        contentType: message.properties.contentType as string | undefined,
        messageId: message.properties.messageId as string | undefined,
      });
      channel.ack(message);
    });
  };
  await open();
  return {
    type: 'rabbitmq',
    settings: { url, exchange, routing_key: 'gateway' },
    received,
    reconnect: open,
    async close() {
      await model?.close().catch(() => {});
    },
  };
}

/**
 * A fresh queue (a FIFO one when `fifo`) of the SQS server at `endpoint` (test/helpers/elasticmq.ts)
 * and a reader polling it, deleting what it read. It polls on through an outage of the server.
 *
 * `received` holds each queue message once: a message the reader got again because its delete did
 * not reach the server (stopped just then) is SQS redelivering to its consumer, not a second send,
 * and is recognised by its queue message id. A FIFO batch is taken in its sequence numbers' order:
 * ElasticMQ may answer a batch of one group out of that order (softwaremill/elasticmq#137).
 */
export async function sqsSink(endpoint: string, fifo = false): Promise<BrokerSink> {
  const client = new SQSClient({
    region: 'elasticmq',
    endpoint,
    credentials: { accessKeyId: 'reader', secretAccessKey: 'reader' },
    maxAttempts: 1,
  });
  const name = `company-${randomUUID().slice(0, 8)}${fifo ? '.fifo' : ''}`;
  const created = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      // A message whose delete an outage lost comes back in seconds, not after SQS's default 30 s.
      Attributes: { VisibilityTimeout: '3', ...(fifo ? { FifoQueue: 'true' } : {}) },
    }),
  );
  const queueUrl = created.QueueUrl!;
  const received: SinkMessage[] = [];
  const seen = new Set<string>();
  let running = true;
  const poll = async () => {
    while (running) {
      const answer = await client
        .send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['MessageGroupId', 'MessageDeduplicationId', 'SequenceNumber'],
          }),
        )
        .catch(() => null);
      if (answer === null) {
        // The server is down (an outage under test): wait until it answers again, then read on.
        await eventually(
          'the SQS server answering the reader',
          () =>
            !running ||
            client.send(new ListQueuesCommand({})).then(
              () => true,
              () => false,
            ),
          120_000,
        ).catch(() => {});
        continue;
      }
      const messages = inQueueOrder(answer.Messages ?? []);
      for (const message of messages) {
        if (seen.has(message.MessageId!)) continue;
        seen.add(message.MessageId!);
        const headers: Record<string, string> = {};
        for (const [key, value] of Object.entries(message.MessageAttributes ?? {}))
          if (key !== 'content-type') headers[key] = value.StringValue ?? '';
        received.push({
          id: headers['webhook-id'] ?? '',
          headers,
          body: message.Body ?? '',
          contentType: message.MessageAttributes?.['content-type']?.StringValue,
          groupId: message.Attributes?.MessageGroupId,
          deduplicationId: message.Attributes?.MessageDeduplicationId,
        });
      }
      if (messages.length > 0)
        await client
          .send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: messages.map((m, n) => ({ Id: String(n), ReceiptHandle: m.ReceiptHandle! })),
            }),
          )
          .catch(() => {});
    }
  };
  const polling = poll();
  return {
    type: 'sqs',
    settings: {
      queue_url: queueUrl,
      region: 'elasticmq',
      access_key_id: 'AKIDSINK',
      secret_access_key: 'sink-secret-value',
    },
    received,
    async close() {
      running = false;
      await polling;
      client.destroy();
    },
  };
}

/** A batch in its FIFO sequence numbers' order (a standard queue's messages have none: kept as they came). */
function inQueueOrder(messages: Message[]): Message[] {
  const sequence = (m: Message) => BigInt(m.Attributes?.SequenceNumber ?? 0);
  return [...messages].sort((a, b) => (sequence(a) < sequence(b) ? -1 : sequence(a) > sequence(b) ? 1 : 0));
}
