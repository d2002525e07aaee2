// Destinations beyond HTTP through the API (docs/api.md, "Destinations"): an endpoint's type and
// broker settings are validated when saved, answered without credentials, and a webhook endpoint's
// answers carry none of the new keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookResponse } from '../../schemas/v2/webhooks.js';
import { expectErrorShape, failingFields, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { compileSchema } from '../helpers/schemas.js';
import { newCompany } from '../helpers/seed.js';

let gw: TestGateway;
const isWebhookResponse = compileSchema(webhookResponse);

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const hooksPath = (company: number) => `/api/p2/companies/${company}/webhooks`;

const KAFKA = {
  brokers: ['kafka-1.example.com:9093', 'kafka-2.example.com:9093'],
  topic: 'gateway.events',
  sasl: { mechanism: 'scram-sha-256', username: 'kafka-user-7', password: 'kafka-password-d41d8cd9' },
  tls: {},
};
const RABBIT = {
  url: 'amqps://amqp-user-7:amqp-password-8f00b204@mq.example.com:5671/prod',
  exchange: 'company-events',
  routing_key: 'gateway',
};
const SQS = {
  queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/company-events.fifo',
  region: 'eu-west-1',
  access_key_id: 'AKIAEXAMPLE7SQSKEY',
  secret_access_key: 'sqs-secret-9e107d9d372bb6826bd81d35',
};
const CREDENTIALS = [
  'kafka-user-7',
  'kafka-password-d41d8cd9',
  'amqp-user-7',
  'amqp-password-8f00b204',
  SQS.access_key_id,
  SQS.secret_access_key,
];

describe('broker endpoints through the API', () => {
  it('creates a Kafka endpoint: its type, target and settings answered, never its credentials', async () => {
    const company = await newCompany(gw);
    const created = await gw.request('POST', hooksPath(company), { json: { type: 'kafka', kafka: KAFKA } });
    expect(created.status, created.text).toBe(201);
    isWebhookResponse(created.body);
    expect(created.body.webhook).toMatchObject({
      type: 'kafka',
      url: 'kafka://kafka-1.example.com:9093,kafka-2.example.com:9093/gateway.events',
      active: false,
      kafka: {
        brokers: KAFKA.brokers,
        topic: 'gateway.events',
        sasl: { mechanism: 'scram-sha-256' },
        tls: {},
      },
    });
    expect(created.body.webhook.secret).toMatch(/^whsec_/);
    const id = created.body.webhook.id as number;
    const shown = await gw.request('GET', `${hooksPath(company)}/${id}`);
    const listed = await gw.request('GET', hooksPath(company));
    expect(shown.body.webhook).toEqual({ ...created.body.webhook, secret: undefined });
    expect(listed.body.webhooks).toEqual([shown.body.webhook]);
    for (const text of [created.text, shown.text, listed.text, gw.logText()])
      for (const credential of CREDENTIALS) expect(text).not.toContain(credential);
    // Kept, for the dispatcher: in the store only.
    const row = gw.store.webhooks.find(company, id)!;
    expect(row.type).toBe('kafka');
    expect(JSON.parse(row.destination!)).toEqual(KAFKA);
  });

  it('creates a RabbitMQ endpoint: its URL answered without user and password', async () => {
    const company = await newCompany(gw);
    const created = await gw.request('POST', hooksPath(company), { json: { type: 'rabbitmq', rabbitmq: RABBIT } });
    expect(created.status, created.text).toBe(201);
    isWebhookResponse(created.body);
    expect(created.body.webhook).toMatchObject({
      type: 'rabbitmq',
      url: 'amqps://mq.example.com:5671/prod',
      rabbitmq: { url: 'amqps://mq.example.com:5671/prod', exchange: 'company-events', routing_key: 'gateway' },
    });
    for (const credential of CREDENTIALS) expect(created.text).not.toContain(credential);
  });

  it('creates an SQS endpoint: its queue answered, never its access key', async () => {
    const company = await newCompany(gw);
    const created = await gw.request('POST', hooksPath(company), { json: { type: 'sqs', sqs: SQS } });
    expect(created.status, created.text).toBe(201);
    isWebhookResponse(created.body);
    expect(created.body.webhook).toMatchObject({
      type: 'sqs',
      url: SQS.queue_url,
      sqs: { queue_url: SQS.queue_url, region: 'eu-west-1', fifo: true, signed: true },
    });
    const id = created.body.webhook.id as number;
    const shown = await gw.request('GET', `${hooksPath(company)}/${id}`);
    expect(shown.body.webhook.sqs).toEqual({ queue_url: SQS.queue_url, region: 'eu-west-1', fifo: true, signed: true });
    for (const text of [created.text, shown.text, gw.logText()])
      for (const credential of CREDENTIALS) expect(text).not.toContain(credential);
    expect(JSON.parse(gw.store.webhooks.find(company, id)!.destination!)).toEqual(SQS);
  });

  it('a webhook endpoint, typed or not, answers exactly the keys it always did', async () => {
    const company = await newCompany(gw);
    const plain = await gw.request('POST', hooksPath(company), { json: { url: 'https://crm.example.com/a' } });
    const typed = await gw.request('POST', hooksPath(company), {
      json: { type: 'webhook', url: 'https://crm.example.com/b' },
    });
    for (const res of [plain, typed]) {
      expect(res.status, res.text).toBe(201);
      expect(Object.keys(res.body.webhook).sort()).toEqual(
        [
          'active',
          'company_id',
          'created_at',
          'disabled_reason',
          'event_types',
          'id',
          'ordering',
          'previous_secret_expires_at',
          'rate_limit',
          'secret',
          'source',
          'updated_at',
          'url',
        ].sort(),
      );
    }
  });

  it('new settings replace the old ones whole and change the target; the type stays', async () => {
    const company = await newCompany(gw);
    const created = await gw.request('POST', hooksPath(company), { json: { type: 'rabbitmq', rabbitmq: RABBIT } });
    const id = created.body.webhook.id as number;
    const moved = await gw.request('PATCH', `${hooksPath(company)}/${id}`, {
      json: { rabbitmq: { url: 'amqp://mq2.example.com/', routing_key: 'other' } },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.webhook).toMatchObject({
      url: 'amqp://mq2.example.com/',
      rabbitmq: { url: 'amqp://mq2.example.com/', exchange: '', routing_key: 'other' },
    });
    const retyped = await gw.request('PATCH', `${hooksPath(company)}/${id}`, { json: { type: 'kafka', kafka: KAFKA } });
    expect(failingFields(retyped)).toEqual(['type']);
    expect(expectErrorShape(retyped, 422, 'validation_failed')[0]!.detail).toBe(
      'the endpoint is a rabbitmq endpoint: its type is chosen when it is created (create another endpoint for kafka)',
    );
    const withUrl = await gw.request('PATCH', `${hooksPath(company)}/${id}`, {
      json: { url: 'https://x.example.com/' },
    });
    expect(failingFields(withUrl)).toEqual(['url']);
    expect(JSON.parse(gw.store.webhooks.find(company, id)!.destination!)).toEqual({
      url: 'amqp://mq2.example.com/',
      exchange: '',
      routing_key: 'other',
    });
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['kafka without its settings', { type: 'kafka' }, 'kafka', 'kafka is required'],
    ['rabbitmq without its settings', { type: 'rabbitmq' }, 'rabbitmq', 'rabbitmq is required'],
    ['sqs without its settings', { type: 'sqs' }, 'sqs', 'sqs is required'],
    ['a webhook without a url', { type: 'webhook' }, 'url', 'url is required'],
    [
      'an unknown type',
      { type: 'sns', url: 'https://x.example.com/' },
      'type',
      'type must be one of: webhook, kafka, rabbitmq, sqs',
    ],
    [
      'kafka settings on a webhook',
      { url: 'https://x.example.com/', kafka: KAFKA },
      'kafka',
      'kafka is for kafka endpoints: a webhook endpoint has a url (send "type": "kafka" to create one)',
    ],
    [
      'a url beside kafka settings',
      { type: 'kafka', kafka: KAFKA, url: 'https://x.example.com/' },
      'url',
      'url is not a setting of a kafka endpoint: its target is given under "kafka"',
    ],
    [
      'a broker without a port',
      { type: 'kafka', kafka: { brokers: ['kafka.example.com'], topic: 't' } },
      'kafka/brokers/0',
      'kafka.brokers.0 must be a broker address host:port',
    ],
    [
      'a topic with a space',
      { type: 'kafka', kafka: { brokers: ['k.example.com:9092'], topic: 'a b' } },
      'kafka/topic',
      'kafka.topic must be a Kafka topic name: 1 to 249 letters, digits, ".", "_" or "-"',
    ],
    [
      'an unknown SASL mechanism',
      {
        type: 'kafka',
        kafka: {
          brokers: ['k.example.com:9092'],
          topic: 't',
          sasl: { mechanism: 'gssapi', username: 'u', password: 'p' },
        },
      },
      'kafka/sasl/mechanism',
      'kafka.sasl.mechanism must be one of: plain, scram-sha-256, scram-sha-512',
    ],
    [
      'a private broker address',
      { type: 'kafka', kafka: { brokers: ['k.example.com:9092', '10.1.2.3:9092'], topic: 't' } },
      'kafka/brokers/1',
      'kafka/brokers/1 may not point at 10.1.2.3: 10.1.2.3 is a private address, and the gateway sends nothing to private, loopback, link-local or reserved addresses unless GATEWAY_WEBHOOK_ALLOW_HOSTS names them',
    ],
    [
      'an http URL for RabbitMQ',
      { type: 'rabbitmq', rabbitmq: { url: 'http://mq.example.com/', routing_key: 'k' } },
      'rabbitmq/url',
      'rabbitmq.url must be an amqp:// or amqps:// URL',
    ],
    [
      'a loopback RabbitMQ',
      { type: 'rabbitmq', rabbitmq: { url: 'amqp://u:p@127.0.0.1:5672/', routing_key: 'k' } },
      'rabbitmq/url',
      'rabbitmq/url may not point at 127.0.0.1: 127.0.0.1 is a loopback address, and the gateway sends nothing to private, loopback, link-local or reserved addresses unless GATEWAY_WEBHOOK_ALLOW_HOSTS names them',
    ],
    [
      'an SQS queue URL that is not http(s)',
      { type: 'sqs', sqs: { queue_url: 'sqs://queue.example.com/1/q', region: 'eu-west-1' } },
      'sqs/queue_url',
      'sqs.queue_url must be the http(s) URL of an SQS queue',
    ],
    [
      'an SQS access key without its secret',
      { type: 'sqs', sqs: { ...SQS, secret_access_key: undefined } },
      'sqs',
      'sqs must have property secret_access_key when property access_key_id is present',
    ],
    [
      'an SQS region with capitals',
      { type: 'sqs', sqs: { ...SQS, region: 'EU-West-1' } },
      'sqs/region',
      'sqs.region must be a region name: 1 to 64 lowercase letters, digits or "-"',
    ],
    [
      'a private SQS server',
      { type: 'sqs', sqs: { queue_url: 'https://10.0.0.9/1/q', region: 'eu-west-1' } },
      'sqs/queue_url',
      'sqs/queue_url may not point at 10.0.0.9: 10.0.0.9 is a private address, and the gateway sends nothing to private, loopback, link-local or reserved addresses unless GATEWAY_WEBHOOK_ALLOW_HOSTS names them',
    ],
    [
      'a plain http SQS queue not allow-listed',
      { type: 'sqs', sqs: { queue_url: 'http://sqs.example.com/1/q', region: 'eu-west-1' } },
      'sqs/queue_url',
      'sqs/queue_url must be https: plain http is only for hosts GATEWAY_WEBHOOK_ALLOW_HOSTS names (sqs.example.com is not one)',
    ],
  ])('422 for %s, naming it, nothing stored', async (_name, json, field, detail) => {
    const company = await newCompany(gw);
    const res = await gw.request('POST', hooksPath(company), { json });
    expect(failingFields(res)).toEqual([field]);
    expect(expectErrorShape(res, 422, 'validation_failed')[0]!.detail).toBe(detail);
    expect(gw.store.webhooks.count(company)).toBe(0);
  });
});
