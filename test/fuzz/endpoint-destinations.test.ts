import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schema } from './bad-values.js';
import { expectRefusedLeavingNothing } from './expect-refused.js';
import { FUZZ, LIMITS, startFuzzGateway, type FuzzWorld } from './fuzz-gateway.js';
import { jsonBreaks, jsonText } from './oracle.js';
import { send } from './send.js';
import { SsrfGuard } from '../../src/net/ssrf.js';

/**
 * Broker destinations (docs/api.md, "Destinations") fuzzed: endpoint types with Kafka and RabbitMQ
 * settings, valid and broken, sent to POST .../webhooks. The oracle is the published schema, then
 * the rules it cannot say: settings of another type than the endpoint's, and targets in ranges the
 * SSRF guard refuses, are a 422 changing nothing; the rest is created (201), answered without
 * credentials, and deleted again.
 */

let world: FuzzWorld;
let schema: Schema;
let target: string;
/** The fuzz gateway allows no private host: its guard judges the generated ones as the route does. */
const guard = new SsrfGuard([]);
beforeAll(async () => {
  world = await startFuzzGateway();
  const document = await send(world, { method: 'GET', target: '/openapi.json', headers: {} });
  const paths = (document.body as { paths: Record<string, Record<string, Record<string, unknown>>> }).paths;
  const post = paths['/api/p2/companies/{companyId}/webhooks']!.post as {
    requestBody: { content: Record<string, { schema: Schema }> };
  };
  schema = post.requestBody.content['application/json']!.schema;
  target = `/api/p2/companies/${world.own.company}/webhooks`;
});
afterAll(() => world.gw.close());

const PASSWORD = 'fuzz-secret-password-91c2';
const host = fc.oneof(
  fc.constantFrom('kafka.example.com', 'b-1.example.net', '10.0.0.7', '127.0.0.1', '8.8.8.8', '[::1]', '[2001:db8::1]'),
  fc.string({ maxLength: 10 }),
);
const port = fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.constant(99999));
const broker = fc.oneof(
  fc.tuple(host, port).map(([h, p]) => `${h}:${p}`),
  host,
  fc.integer(),
);
const sasl = fc.record(
  {
    mechanism: fc.oneof(fc.constantFrom('plain', 'scram-sha-256', 'scram-sha-512'), fc.string({ maxLength: 6 })),
    username: fc.oneof(fc.constant('fuzz-user'), fc.string({ maxLength: 4 })),
    password: fc.oneof(fc.constant(PASSWORD), fc.constant(''), fc.integer()),
  },
  { requiredKeys: [] },
);
const kafka = fc.record(
  {
    brokers: fc.oneof(fc.array(broker, { maxLength: 3 }), broker),
    topic: fc.oneof(fc.constantFrom('events', 'a.b_c-d', 'with space', ''), fc.string({ maxLength: 8 })),
    sasl,
    tls: fc.oneof(fc.constant({}), fc.record({ reject_unauthorized: fc.boolean() }), fc.constant(true)),
  },
  { requiredKeys: [] },
);
const rabbitmq = fc.record(
  {
    url: fc.oneof(
      host.map((h) => `amqp://fuzz-user:${PASSWORD}@${h}:5672/vhost`),
      host.map((h) => `amqps://${h}/`),
      fc.constantFrom('http://mq.example.com/', 'amqp://', 'amqp:// space'),
      fc.string({ maxLength: 8 }),
    ),
    exchange: fc.oneof(fc.constant(''), fc.string({ maxLength: 8 }), fc.integer()),
    routing_key: fc.oneof(fc.constant('gateway'), fc.string({ maxLength: 8 })),
  },
  { requiredKeys: [] },
);
const sqs = fc.record(
  {
    queue_url: fc.oneof(
      host.map((h) => `https://${h}/123456789012/company-events`),
      host.map((h) => `https://${h}/1/q.fifo`),
      host.map((h) => `http://${h}/1/q`),
      fc.constantFrom('sqs://q.example.com/1/q', 'https://', 'https://q.example.com', 'https://[zz]/1/q'),
      fc.string({ maxLength: 8 }),
    ),
    region: fc.oneof(fc.constantFrom('eu-west-1', 'elasticmq', 'EU', ''), fc.string({ maxLength: 6 })),
    access_key_id: fc.oneof(fc.constant('fuzz-user'), fc.constant(''), fc.integer()),
    secret_access_key: fc.oneof(fc.constant(PASSWORD), fc.constant(''), fc.integer()),
  },
  { requiredKeys: [] },
);
const anyBody = fc.record(
  {
    type: fc.oneof(fc.constantFrom('webhook', 'kafka', 'rabbitmq', 'sqs', ''), fc.integer()),
    url: fc.constantFrom('https://crm.example.com/hooks', 'http://10.0.0.1/x'),
    kafka,
    rabbitmq,
    sqs,
  },
  { requiredKeys: [] },
);
/** Bodies of each type that only the settings' own generated parts may break: every run creates some. */
const publicHost = fc.constantFrom('kafka.example.com', 'b-1.example.net', 'mq.example.org');
const wellFormedBody = fc.oneof(
  fc.record({ url: fc.constant('https://crm.example.com/hooks') }),
  fc.record({
    type: fc.constant('kafka'),
    kafka: fc.record(
      {
        brokers: fc.array(
          fc.tuple(publicHost, fc.integer({ min: 1, max: 65535 })).map(([h, p]) => `${h}:${p}`),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        topic: fc.constantFrom('events', 'a.b_c-d'),
        sasl,
        tls: fc.constant({}),
      },
      { requiredKeys: ['brokers', 'topic'] },
    ),
  }),
  fc.record({
    type: fc.constant('rabbitmq'),
    rabbitmq: fc.record(
      {
        url: publicHost.map((h) => `amqp://fuzz-user:${PASSWORD}@${h}:5672/vhost`),
        exchange: fc.constant(''),
        routing_key: fc.constant('gateway'),
      },
      { requiredKeys: ['url'] },
    ),
  }),
  fc.record({
    type: fc.constant('sqs'),
    sqs: fc.record(
      {
        queue_url: publicHost.map((h) => `https://${h}/123456789012/company-events.fifo`),
        region: fc.constant('eu-west-1'),
        access_key_id: fc.constant('fuzz-user'),
        secret_access_key: fc.constant(PASSWORD),
      },
      { requiredKeys: ['queue_url', 'region'] },
    ),
  }),
);
const body = fc.oneof(anyBody, wellFormedBody);

/** Hosts of the target the body names for its type (the schema already holds). */
function hostsOf(value: Record<string, unknown>): string[] {
  const type = (value.type as string | undefined) ?? 'webhook';
  if (type === 'kafka')
    return (value.kafka as { brokers: string[] }).brokers.map((b) => new URL(`kafka://${b}`).hostname);
  if (type === 'rabbitmq') return [new URL((value.rabbitmq as { url: string }).url).hostname];
  if (type === 'sqs') return [new URL((value.sqs as { queue_url: string }).queue_url).hostname];
  return [new URL(value.url as string).hostname];
}

/** What the route refuses beyond the schema: another type's fields, a refused target. */
function routeRefuses(value: Record<string, unknown>): boolean {
  const type = (value.type as string | undefined) ?? 'webhook';
  const own = type === 'webhook' ? 'url' : type;
  if ((['url', 'kafka', 'rabbitmq', 'sqs'] as const).some((field) => field !== own && value[field] !== undefined))
    return true;
  if (type === 'sqs') {
    if (!URL.canParse((value.sqs as { queue_url: string }).queue_url)) return true;
    const url = new URL((value.sqs as { queue_url: string }).queue_url);
    if (url.protocol === 'http:' && !guard.isAllowed(url.hostname)) return true;
  }
  return hostsOf(value).some((h) => guard.refusalOf(h) !== null);
}

describe(`fuzzing the endpoint destinations (FUZZ_SEED=${FUZZ.seed} FUZZ_RUNS=${FUZZ.runs})`, () => {
  it('refuses every broken destination with a 422 changing nothing, creates the rest without answering credentials', async () => {
    let [created, refused] = [0, 0];
    await fc.assert(
      fc.asyncProperty(body, async (candidate) => {
        const text = jsonText(candidate);
        const request = {
          method: 'POST',
          target,
          headers: { 'x-private-api-token': world.gw.token, 'content-type': 'application/json' },
          body: Buffer.from(text),
        };
        const value = JSON.parse(text) as Record<string, unknown>;
        if (jsonBreaks(schema, text, LIMITS.jsonDepth) || routeRefuses(value)) {
          refused += 1;
          const answer = await expectRefusedLeavingNothing(world, request, [422]);
          expect(answer.status).toBe(422);
          return;
        }
        created += 1;
        const answer = await send(world, request);
        expect(answer.status, answer.text).toBe(201);
        expect(answer.text).not.toContain(PASSWORD);
        expect(answer.text).not.toContain('fuzz-user');
        const webhook = (answer.body as { webhook: { id: number; type?: string } }).webhook;
        expect(webhook.type ?? 'webhook').toBe((value.type as string | undefined) ?? 'webhook');
        const removed = await send(world, {
          method: 'DELETE',
          target: `${target}/${webhook.id}`,
          headers: { 'x-private-api-token': world.gw.token },
        });
        expect(removed.status).toBe(204);
      }),
      { seed: FUZZ.seed + 7, numRuns: FUZZ.runs * 5, endOnFailure: false },
    );
    expect(created).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(world.gw.logText()).not.toContain(PASSWORD);
  }, 300_000);
});
