// The event catalog: GET /api/p2/event_types, the `webhooks` of /openapi.json, and their agreement
// with the schemas under schemas/events and the events the gateway writes.
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_CATALOG } from '../../schemas/events/catalog.js';
import { WEBHOOK_EVENT_TYPES } from '../../schemas/objects/webhook.js';
import { eventTypeListResponse } from '../../schemas/v2/event-types.js';
import { assertValidEvent, emittedEvents } from '../helpers/events.js';
import { expectErrorShape, failingFields, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { compileSchema, schemaErrors } from '../helpers/schemas.js';
import { startReceiver } from '../helpers/receiver.js';

let gw: TestGateway;
/** Answers 200 to everything: enabling an endpoint sends it the activation's test POST first. */
let receiver: Awaited<ReturnType<typeof startReceiver>>;

// Strict, with formats; strictRequired off for the v1 channel payload's conditional `required`.
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
((formats as { default?: unknown }).default as typeof formats.default)(ajv);

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  receiver = await startReceiver(
    () => [],
    () => ({ status: 200 }),
  );
});
afterAll(async () => {
  await gw.close();
  await receiver.close();
});

const TEST_EVENTS = ['webhook.test', 'webhook_url.test'];
const NAMES = [...WEBHOOK_EVENT_TYPES, ...TEST_EVENTS];

describe('GET /api/p2/event_types', () => {
  it('lists every event type with its schema and an example, in the documented shape', async () => {
    const res = await gw.request('GET', '/api/p2/event_types');
    expect(res.status).toBe(200);
    const validate = compileSchema(eventTypeListResponse);
    expect(validate(res.body), schemaErrors(validate)).toBe(true);
    expect(res.body.event_types.map((e: { name: string }) => e.name)).toEqual(NAMES);
    expect(
      res.body.event_types.filter((e: { filterable: boolean }) => !e.filterable).map((e: { name: string }) => e.name),
    ).toEqual(TEST_EVENTS);
    expect(res.body).toEqual(JSON.parse(JSON.stringify({ event_types: EVENT_CATALOG })));
    for (const name of ['webhook.disabled', 'webhook.enabled', 'delivery.failed']) expect(NAMES).toContain(name);
  });

  it('needs the API token', async () => {
    expectErrorShape(await gw.request('GET', '/api/p2/event_types', { token: null }), 401, 'unauthorized');
    expectErrorShape(
      await gw.request('GET', '/api/p2/event_types', { token: 'gwk_wrong_token_0123456789' }),
      401,
      'unauthorized',
    );
  });

  it('every example validates against its own schema and no other name of its family', () => {
    const validators = new Map(EVENT_CATALOG.map((entry) => [entry.name, ajv.compile(entry.schema)]));
    for (const entry of EVENT_CATALOG) {
      const validate = validators.get(entry.name)!;
      expect(validate(entry.example), `${entry.name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      const family = entry.name.split('.')[0];
      for (const other of EVENT_CATALOG.filter((e) => e.name !== entry.name && e.name.split('.')[0] === family)) {
        expect(validators.get(other.name)!(entry.example), `${entry.name}'s example is not a ${other.name}`).toBe(
          false,
        );
      }
    }
  });

  it('every example written to the outbox would pass the check every emitted event passes (schemas/events, record and body agree)', () => {
    for (const entry of EVENT_CATALOG.filter((e) => e.name !== 'webhook.test')) {
      const body = entry.example as {
        id: string;
        created_at: string;
        company_id?: number;
        object?: { company_id: number };
      };
      const companyId = body.company_id ?? body.object!.company_id;
      expect(() =>
        assertValidEvent({
          id: body.id,
          company_id: companyId,
          name: entry.name,
          created_at: body.created_at,
          body: body,
        }),
      ).not.toThrow();
    }
  });

  it('the filterable names are the ones a webhook endpoint may ask for', async () => {
    const company = (await gw.request('POST', '/p1/companies', { json: { name: 'Catalog' } })).body.data
      .external_id as number;
    const filterable = EVENT_CATALOG.filter((e) => e.filterable).map((e) => e.name);
    expect(filterable).toEqual([...WEBHOOK_EVENT_TYPES]);
    const created = await gw.request('POST', `/api/p2/companies/${company}/webhooks`, {
      json: {
        url: 'https://hooks.example.com/ops',
        event_types: ['webhook.disabled', 'webhook.enabled', 'delivery.failed'],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.webhook.event_types).toEqual(['webhook.disabled', 'webhook.enabled', 'delivery.failed']);
    expect(
      failingFields(
        await gw.request('POST', `/api/p2/companies/${company}/webhooks`, {
          json: { url: 'https://hooks.example.com/t', event_types: ['webhook.test'] },
        }),
      ),
    ).toEqual(['event_types/0']);
  });

  it('the events written through the API are in the catalog and match their schemas', async () => {
    const company = (await gw.request('POST', '/p1/companies', { json: { name: 'Emitting' } })).body.data
      .external_id as number;
    const webhook = (
      await gw.request('POST', `/api/p2/companies/${company}/webhooks`, { json: { url: receiver.url, active: true } })
    ).body.webhook;
    const auth = (
      await gw.request('POST', `/api/p2/companies/${company}/auths`, {
        json: { provider: 'chat_b', token: '123456:bot-token' },
      })
    ).body.auth;
    expect((await gw.request('PUT', `/api/p2/companies/${company}/auths/${auth.id}/disable`)).status).toBe(200);
    expect(
      (await gw.request('PATCH', `/api/p2/companies/${company}/webhooks/${webhook.id}`, { json: { active: false } }))
        .status,
    ).toBe(200);
    expect(
      (await gw.request('PATCH', `/api/p2/companies/${company}/webhooks/${webhook.id}`, { json: { active: true } }))
        .status,
    ).toBe(200);
    // emittedEvents validates each against its family's schema and its catalog entry.
    const events = emittedEvents(gw.gateway.store).filter((e) => e.company_id === company);
    expect(events.map((e) => e.name)).toEqual(['auth.create', 'auth.update', 'webhook.disabled', 'webhook.enabled']);
    for (const event of events) expect(NAMES).toContain(event.name);
  });
});

describe('the webhooks of /openapi.json', () => {
  it('describes every event type of the catalog as a webhook with its schema, example and signature headers', async () => {
    const document = (await gw.request('GET', '/openapi.json', { token: null })).body;
    expect(Object.keys(document.webhooks)).toEqual(NAMES);
    for (const entry of EVENT_CATALOG) {
      const post = document.webhooks[entry.name].post;
      expect(post.requestBody.content['application/json'].schema).toEqual(JSON.parse(JSON.stringify(entry.schema)));
      expect(post.requestBody.content['application/json'].examples[entry.name].value).toEqual(entry.example);
      expect(post.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
        'header:webhook-id',
        'header:webhook-timestamp',
        'header:webhook-signature',
      ]);
      expect(Object.keys(post.responses)).toEqual(['2XX']);
    }
    expect(
      document.paths['/api/p2/event_types'].get.responses['200'].content['application/json'].schema.required,
    ).toEqual(['event_types']);
  });
});
