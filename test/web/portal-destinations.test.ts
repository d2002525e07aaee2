// Broker endpoints through the portal's own API (docs/console.md): created with the API's rules,
// answered without credentials, and changed with credentials left out kept while the hosts stay.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { failingFields, startTestGateway, type TestGateway, type TestResponse } from '../helpers/gateway.js';
import { insertCompany } from '../helpers/pipeline.js';

let gw: TestGateway;
let company: number;
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  gw = await startTestGateway();
  company = insertCompany(gw.store, 'Brokers Ltd');
  const link = await gw.request('POST', `/api/p2/companies/${company}/portal_sessions`);
  const opened = await gw.request('POST', '/portal/session', {
    token: null,
    json: { token: new URL(link.body.portal_session.url).hash.slice(1) },
  });
  expect(opened.status, opened.text).toBe(201);
  const cookie = String(opened.headers['set-cookie']?.[0]).split(';')[0]!;
  session = { cookie, csrf: opened.body.session.csrf_token };
});
afterAll(async () => {
  await gw?.close();
});
// A company has at most five endpoints: each test starts with none.
afterEach(() => {
  gw.store.transaction(() => {
    for (const row of gw.store.webhooks.list(company)) gw.store.webhooks.delete(row.id);
  });
});

const portal = (method: string, path: string, json?: unknown): Promise<TestResponse> =>
  gw.request(method, path, { token: null, json, headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });

const KAFKA = {
  brokers: ['kafka-1.example.com:9093', 'kafka-2.example.com:9093'],
  topic: 'portal.events',
  sasl: { mechanism: 'scram-sha-512', username: 'portal-kafka-user', password: 'portal-kafka-password-1' },
  tls: { servername: 'kafka.example.com' },
};
const RABBIT = {
  url: 'amqps://portal-amqp-user:portal-amqp-password@mq.example.com:5671/prod',
  exchange: 'events',
  routing_key: 'portal',
};
const SQS = {
  queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/portal-events',
  region: 'eu-west-1',
  access_key_id: 'AKIAPORTALKEY',
  secret_access_key: 'portal-sqs-secret-1',
};

async function create(body: unknown): Promise<number> {
  const res = await portal('POST', '/portal/api/webhooks', body);
  expect(res.status, res.text).toBe(201);
  return res.body.webhook.id as number;
}
const stored = (id: number): unknown => JSON.parse(gw.store.webhooks.find(company, id)!.destination!);

describe('broker endpoints through the portal API', () => {
  it('creates one of each type, answered like the API answers it, never with a credential', async () => {
    const kafka = await portal('POST', '/portal/api/webhooks', { type: 'kafka', kafka: KAFKA });
    expect(kafka.status, kafka.text).toBe(201);
    expect(kafka.body.webhook).toMatchObject({
      type: 'kafka',
      active: true,
      url: 'kafka://kafka-1.example.com:9093,kafka-2.example.com:9093/portal.events',
      kafka: { brokers: KAFKA.brokers, topic: 'portal.events', sasl: { mechanism: 'scram-sha-512' }, tls: KAFKA.tls },
    });
    const api = await gw.request('GET', `/api/p2/companies/${company}/webhooks/${kafka.body.webhook.id}`);
    expect(api.body.webhook).toEqual({ ...kafka.body.webhook, secret: undefined });
    expect(stored(kafka.body.webhook.id)).toEqual(KAFKA);

    const rabbit = await portal('POST', '/portal/api/webhooks', { type: 'rabbitmq', rabbitmq: RABBIT });
    expect(rabbit.status, rabbit.text).toBe(201);
    expect(rabbit.body.webhook.rabbitmq).toEqual({
      url: 'amqps://mq.example.com:5671/prod',
      exchange: 'events',
      routing_key: 'portal',
    });
    const sqs = await portal('POST', '/portal/api/webhooks', { type: 'sqs', sqs: SQS });
    expect(sqs.status, sqs.text).toBe(201);
    expect(sqs.body.webhook.sqs).toEqual({ queue_url: SQS.queue_url, region: 'eu-west-1', fifo: false, signed: true });

    const listed = await portal('GET', '/portal/api/webhooks');
    for (const text of [kafka.text, rabbit.text, sqs.text, listed.text, gw.logText()])
      for (const secret of [
        'portal-kafka-user',
        'portal-kafka-password-1',
        'portal-amqp-password',
        'AKIAPORTALKEY',
        'portal-sqs-secret-1',
      ])
        expect(text).not.toContain(secret);
  });

  it("refuses bad settings with the API's 422 naming the field, storing nothing", async () => {
    const before = gw.store.webhooks.count(company);
    const cases: [unknown, string[]][] = [
      [{ type: 'kafka', kafka: { ...KAFKA, topic: 'no spaces allowed' } }, ['kafka/topic']],
      [{ type: 'kafka', kafka: { ...KAFKA, brokers: ['10.0.0.5:9092'] } }, ['kafka/brokers/0']],
      [{ type: 'rabbitmq', rabbitmq: { ...RABBIT, url: 'http://mq.example.com' } }, ['rabbitmq/url']],
      [{ type: 'sqs', sqs: { queue_url: SQS.queue_url, region: 'eu-west-1', access_key_id: 'AKIA' } }, ['sqs']],
      [{ type: 'kafka' }, ['kafka']],
      [{ type: 'sqs', url: 'https://crm.example.com/hooks', sqs: SQS }, ['url']],
    ];
    for (const [body, fields] of cases) {
      const res = await portal('POST', '/portal/api/webhooks', body);
      expect(failingFields(res), JSON.stringify(body)).toEqual(fields);
    }
    expect(gw.store.webhooks.count(company)).toBe(before);
  });

  it('keeps the Kafka SASL credentials left out while the brokers stay, and asks for them when they move', async () => {
    const id = await create({ type: 'kafka', kafka: KAFKA });
    const kept = await portal('PATCH', `/portal/api/webhooks/${id}`, {
      kafka: { ...KAFKA, topic: 'portal.renamed', sasl: { mechanism: 'scram-sha-256' } },
    });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.webhook.url).toBe('kafka://kafka-1.example.com:9093,kafka-2.example.com:9093/portal.renamed');
    expect(stored(id)).toEqual({
      ...KAFKA,
      topic: 'portal.renamed',
      sasl: { ...KAFKA.sasl, mechanism: 'scram-sha-256' },
    });

    const moved = await portal('PATCH', `/portal/api/webhooks/${id}`, {
      kafka: { ...KAFKA, brokers: ['kafka-9.example.com:9093'], sasl: { mechanism: 'plain', username: 'new-user' } },
    });
    expect(failingFields(moved)).toEqual(['kafka/sasl/password']);
    expect((stored(id) as { topic: string }).topic).toBe('portal.renamed');

    const dropped = await portal('PATCH', `/portal/api/webhooks/${id}`, {
      kafka: { brokers: ['kafka-9.example.com:9093'], topic: 't' },
    });
    expect(dropped.status, dropped.text).toBe(200);
    expect(stored(id)).toEqual({ brokers: ['kafka-9.example.com:9093'], topic: 't' });
    const none = await portal('PATCH', `/portal/api/webhooks/${id}`, {
      kafka: { brokers: ['kafka-9.example.com:9093'], topic: 't', sasl: { mechanism: 'plain' } },
    });
    expect(failingFields(none)).toEqual(['kafka/sasl/username']);
  });

  it('keeps the AMQP user and password while the host stays, and the SQS key while the queue host stays', async () => {
    const rabbit = await create({ type: 'rabbitmq', rabbitmq: RABBIT });
    const kept = await portal('PATCH', `/portal/api/webhooks/${rabbit}`, {
      rabbitmq: { url: 'amqps://mq.example.com:5671/staging', exchange: '', routing_key: 'q' },
    });
    expect(kept.status, kept.text).toBe(200);
    expect(stored(rabbit)).toEqual({
      url: 'amqps://portal-amqp-user:portal-amqp-password@mq.example.com:5671/staging',
      exchange: '',
      routing_key: 'q',
    });
    const moved = await portal('PATCH', `/portal/api/webhooks/${rabbit}`, {
      rabbitmq: { url: 'amqps://other.example.com/prod', routing_key: 'q' },
    });
    expect(failingFields(moved)).toEqual(['rabbitmq/url']);

    const sqs = await create({ type: 'sqs', sqs: SQS });
    const renamed = `${SQS.queue_url}-2.fifo`;
    const keptKey = await portal('PATCH', `/portal/api/webhooks/${sqs}`, {
      sqs: { queue_url: renamed, region: 'eu-west-1' },
    });
    expect(keptKey.status, keptKey.text).toBe(200);
    expect(keptKey.body.webhook.sqs).toEqual({ queue_url: renamed, region: 'eu-west-1', fifo: true, signed: true });
    expect(stored(sqs)).toEqual({ ...SQS, queue_url: renamed });
    const movedQueue = await portal('PATCH', `/portal/api/webhooks/${sqs}`, {
      sqs: { queue_url: 'https://sqs.us-east-1.amazonaws.com/123456789012/q', region: 'us-east-1' },
    });
    expect(failingFields(movedQueue)).toEqual(['sqs/access_key_id']);
    expect(stored(sqs)).toEqual({ ...SQS, queue_url: renamed });
  });

  it("refuses another type's settings on an update, and a url on a broker endpoint", async () => {
    const id = await create({ type: 'sqs', sqs: SQS });
    expect(failingFields(await portal('PATCH', `/portal/api/webhooks/${id}`, { kafka: KAFKA }))).toEqual(['kafka']);
    expect(
      failingFields(await portal('PATCH', `/portal/api/webhooks/${id}`, { url: 'https://crm.example.com/x' })),
    ).toEqual(['url']);
    const hook = await create({ url: 'https://crm.example.com/hooks' });
    expect(
      failingFields(
        await portal('PATCH', `/portal/api/webhooks/${hook}`, {
          rabbitmq: { url: 'amqp://mq.example.com', routing_key: 'x' },
        }),
      ),
    ).toEqual(['rabbitmq']);
  });
});
