import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/**
 * Where a company endpoint sends its events (docs/api.md, "Destinations"): `webhook` (an HTTP
 * POST, the default), `kafka` (a record on the company's own Kafka topic), `rabbitmq` (a message
 * published on the company's own AMQP 0-9-1 exchange) or `sqs` (a message sent to the company's own
 * Amazon SQS queue). Chosen when the endpoint is created.
 */
export const DESTINATION_TYPES = ['webhook', 'kafka', 'rabbitmq', 'sqs'] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/** `host:port`, a name or an IP address (IPv6 in brackets). */
const brokerAddress = {
  type: 'string',
  maxLength: 300,
  pattern: '^([A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?|\\[[0-9A-Fa-f:.]+\\]):[0-9]{1,5}$',
  'x-message': 'must be a broker address host:port',
} as const;

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

const brokers = {
  type: 'array',
  items: brokerAddress,
  minItems: 1,
  maxItems: 10,
  uniqueItems: true,
  'x-message': 'must be a list of 1 to 10 distinct broker addresses host:port',
} as const;

const topic = {
  type: 'string',
  pattern: '^[A-Za-z0-9._-]{1,249}$',
  'x-message': 'must be a Kafka topic name: 1 to 249 letters, digits, ".", "_" or "-"',
} as const;

const mechanism = { type: 'string', enum: SASL_MECHANISMS } as const;

const amqpUrl = {
  type: 'string',
  maxLength: 2048,
  pattern: '^amqps?://[^\\s]+$',
  'x-message': 'must be an amqp:// or amqps:// URL',
} as const;

/** `webhook`, `kafka`, `rabbitmq` or `sqs`. */
export const destinationType = { type: 'string', enum: DESTINATION_TYPES } as const;

/** What a new endpoint's body must hold for its type: a webhook its url, a broker its settings under its type's name. */
export const destinationRequired = [
  { if: { properties: { type: { const: 'webhook' } } }, then: { required: ['url'] } },
  { if: { required: ['type'], properties: { type: { const: 'kafka' } } }, then: { required: ['kafka'] } },
  { if: { required: ['type'], properties: { type: { const: 'rabbitmq' } } }, then: { required: ['rabbitmq'] } },
  { if: { required: ['type'], properties: { type: { const: 'sqs' } } }, then: { required: ['sqs'] } },
] as const;

/** TLS toward the brokers: present (even empty) turns it on, with the system's CAs unless `ca` names one. */
const tlsSettings = {
  type: 'object',
  additionalProperties: false,
  properties: {
    /** PEM certificates the brokers' certificates must chain to. */
    ca: { type: 'string', minLength: 1, maxLength: 65_536 },
    /** The name the certificate must carry, when it is not the broker's host. */
    servername: { type: 'string', minLength: 1, maxLength: 255 },
    /** false accepts any certificate (testing only); true by default. */
    reject_unauthorized: { type: 'boolean' },
  },
} as const;

/** The company's Kafka cluster and topic. `sasl.password` is write-only: never answered. */
export const kafkaSettings = {
  type: 'object',
  additionalProperties: false,
  required: ['brokers', 'topic'],
  properties: {
    brokers,
    topic,
    sasl: {
      type: 'object',
      additionalProperties: false,
      required: ['mechanism', 'username', 'password'],
      properties: {
        mechanism,
        username: { type: 'string', minLength: 1, maxLength: 255 },
        password: { type: 'string', minLength: 1, maxLength: 1024 },
      },
    },
    tls: tlsSettings,
  },
} as const satisfies JSONSchema;
export type KafkaSettings = FromSchema<typeof kafkaSettings>;

/**
 * The company's RabbitMQ: an `amqp://` or `amqps://` URL (its user and password are write-only),
 * the exchange ("" is the default exchange, which routes by queue name) and the routing key.
 */
export const rabbitmqSettings = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'routing_key'],
  properties: {
    url: amqpUrl,
    exchange: { type: 'string', maxLength: 255, default: '' },
    routing_key: { type: 'string', maxLength: 255 },
  },
} as const satisfies JSONSchema;
export type RabbitmqSettings = FromSchema<typeof rabbitmqSettings>;

/** An SQS queue URL: `https://sqs.<region>.amazonaws.com/<account>/<queue>`, or http(s) to another server. */
const queueUrl = {
  type: 'string',
  maxLength: 2048,
  pattern: '^https?://[^\\s/?#]+/[^\\s?#]+$',
  'x-message': 'must be the http(s) URL of an SQS queue',
} as const;

const region = {
  type: 'string',
  pattern: '^[a-z0-9-]{1,64}$',
  'x-message': 'must be a region name: 1 to 64 lowercase letters, digits or "-"',
} as const;

/**
 * The company's SQS queue: its URL (a `.fifo` one is a FIFO queue), its region and, optionally, an
 * access key (both parts or neither; the secret is write-only, the key id is never answered either).
 * Without a key the requests go unsigned, for a queue whose policy lets anyone send.
 */
export const sqsSettings = {
  type: 'object',
  additionalProperties: false,
  required: ['queue_url', 'region'],
  dependencies: { access_key_id: ['secret_access_key'], secret_access_key: ['access_key_id'] },
  properties: {
    queue_url: queueUrl,
    region,
    access_key_id: { type: 'string', minLength: 1, maxLength: 128 },
    secret_access_key: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const satisfies JSONSchema;
export type SqsSettings = FromSchema<typeof sqsSettings>;

/** A FIFO queue's name ends in `.fifo` (SQS's own rule). */
export function isFifoQueue(queueUrl: string): boolean {
  return /\.fifo$/.test(queueUrl.replace(/\/+$/, ''));
}

/** A Kafka destination as answered: its settings without the SASL username and password. */
export const kafkaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['brokers', 'topic'],
  properties: {
    brokers: { type: 'array', items: { type: 'string' } },
    topic: { type: 'string' },
    sasl: {
      type: 'object',
      additionalProperties: false,
      required: ['mechanism'],
      properties: { mechanism: { type: 'string', enum: SASL_MECHANISMS } },
    },
    tls: tlsSettings,
  },
} as const satisfies JSONSchema;

/** A RabbitMQ destination as answered: its URL without user and password. */
export const rabbitmqObject = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'exchange', 'routing_key'],
  properties: {
    url: { type: 'string' },
    exchange: { type: 'string' },
    routing_key: { type: 'string' },
  },
} as const satisfies JSONSchema;

/** An SQS destination as answered: its queue and region, and whether it has an access key (never the key). */
export const sqsObject = {
  type: 'object',
  additionalProperties: false,
  required: ['queue_url', 'region', 'fifo', 'signed'],
  properties: {
    queue_url: { type: 'string' },
    region: { type: 'string' },
    /** The queue URL ends in `.fifo`: messages carry a group id and the event id as deduplication id. */
    fifo: { type: 'boolean' },
    /** Requests are signed with the access key given (true) or sent unsigned (false). */
    signed: { type: 'boolean' },
  },
} as const satisfies JSONSchema;

/** A broker endpoint's type with its settings, as jobs carry them to the dispatcher (credentials included). */
export type BrokerDestination =
  ({ type: 'kafka' } & KafkaSettings) | ({ type: 'rabbitmq' } & RabbitmqSettings) | ({ type: 'sqs' } & SqsSettings);
