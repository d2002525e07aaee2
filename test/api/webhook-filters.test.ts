// Payload filters of webhook endpoints (docs/api.md, "Payload filters"): validated when saved,
// shown by the API, and applied at fan-out, so a filtered endpoint is only sent what matches.
// Through HTTP alone (real callbacks, the admin API's deliveries), so it runs against a cluster too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookResponse } from '../../schemas/v2/webhooks.js';
import {
  expectErrorShape,
  failingFields,
  startTestGateway,
  TO_RECEIVERS,
  type TestGateway,
} from '../helpers/gateway.js';
import { callbackInfo, fixture, postConnector } from '../helpers/callbacks.js';
import { conversationWith } from '../helpers/company-messages.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { compileSchema } from '../helpers/schemas.js';
import { eventually } from '../helpers/wait.js';
import { newCompany } from '../helpers/seed.js';

let gw: TestGateway;
const receivers: Receiver[] = [];
beforeAll(async () => {
  gw = await startTestGateway(TO_RECEIVERS);
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await gw?.close();
});

const validateWebhook = compileSchema(webhookResponse);
const hooksPath = (company: number) => `/api/p2/companies/${company}/webhooks`;

const INCOMING_ON_CHANNEL_3 = {
  and: [
    { path: 'type', op: 'eq', value: 'message' },
    { path: 'object.direction', op: 'eq', value: 'incoming' },
    {
      or: [
        { path: 'object.channel_id', op: 'in', value: [3, 4] },
        { path: 'object.urgent', op: 'exists' },
      ],
    },
  ],
};

describe('payload filters through the API', () => {
  it('stores a filter, shows it, keeps it on an update that does not name it, and clears it with null', async () => {
    const company = await newCompany(gw);
    const created = await gw.request('POST', hooksPath(company), {
      json: { url: 'https://crm.example.com/hooks', filter: INCOMING_ON_CHANNEL_3 },
    });
    expect(created.status, created.text).toBe(201);
    expect(validateWebhook(created.body), JSON.stringify(validateWebhook.errors)).toBe(true);
    expect(created.body.webhook.filter).toEqual(INCOMING_ON_CHANNEL_3);
    const id = created.body.webhook.id as number;
    const shown = await gw.request('GET', `${hooksPath(company)}/${id}`);
    expect(shown.body.webhook.filter).toEqual(INCOMING_ON_CHANNEL_3);
    const renamed = await gw.request('PATCH', `${hooksPath(company)}/${id}`, { json: { rate_limit: 5 } });
    expect(renamed.body.webhook.filter).toEqual(INCOMING_ON_CHANNEL_3);
    const cleared = await gw.request('PATCH', `${hooksPath(company)}/${id}`, { json: { filter: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.webhook).not.toHaveProperty('filter');
    expect((await gw.request('GET', `${hooksPath(company)}/${id}`)).body.webhook).not.toHaveProperty('filter');
  });

  it('answers an endpoint without a filter exactly as before: no filter key', async () => {
    const company = await newCompany(gw);
    const created = await gw.request('POST', hooksPath(company), { json: { url: 'https://crm.example.com/plain' } });
    expect(Object.keys(created.body.webhook).sort()).toEqual(
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
  });

  const deep = { and: [{ or: [{ and: [{ or: [{ path: 'type', op: 'exists' }] }] }] }] };
  it.each<[string, unknown, string, RegExp]>([
    ['an unknown operator', { path: 'type', op: 'like', value: 'm%' }, 'filter/op', /must be one of: eq, ne/],
    ['a path outside the envelope', { path: 'body.id', op: 'exists' }, 'filter/path', /must be a dotted path/],
    ['a condition without a path', { op: 'eq', value: 1 }, 'filter/path', /filter\.path is required/],
    ['eq without a value', { path: 'type', op: 'eq' }, 'filter/value', /filter\.value is required/],
    ['in with an empty list', { path: 'type', op: 'in', value: [] }, 'filter/value', /must be a list of 1 to 50/],
    ['gt with a boolean', { path: 'object.id', op: 'gt', value: true }, 'filter/value', /must be a number or string/],
    ['exists with a number', { path: 'type', op: 'exists', value: 1 }, 'filter/value', /must be a boolean/],
    [
      'and beside a condition',
      { and: [{ path: 'type', op: 'exists' }], path: 'type' },
      'filter',
      /must hold "and" alone/,
    ],
    ['an empty or', { or: [] }, 'filter/or', /must NOT have fewer than 1 items/],
    [
      'a bad part deep inside',
      { or: [{ path: 'type', op: 'exists' }, { and: [{ path: 'object.x', op: 'lt' }] }] },
      'filter/or/1/and/0/value',
      /required/,
    ],
    ['and/or nested four levels deep', deep, 'filter/and/0/or/0/and/0/or', /nests too deep: at most 3 levels/],
    ['a string', 'type=message', 'filter', /filter must be an object or null/],
  ])('422 for %s, naming the part, nothing stored', async (_name, filter, field, detail) => {
    const company = await newCompany(gw);
    const res = await gw.request('POST', hooksPath(company), { json: { url: 'https://crm.example.com/x', filter } });
    expect(failingFields(res)).toContain(field);
    const entry = expectErrorShape(res, 422, 'validation_failed').find((e) => e.source?.pointer === `/${field}`)!;
    expect(entry.detail).toMatch(detail);
    expect((await gw.request('GET', hooksPath(company))).body.meta.entries_count).toBe(0);
  });
});

describe('payload filters at fan-out', () => {
  it('queues for a filtered endpoint only the events that match, and every event for an unfiltered one', async () => {
    const company = await newCompany(gw);
    const channel = (await gw.request('POST', `/api/p2/companies/${company}/auths`, { json: { provider: 'chat_d' } }))
      .body.auth.id as number;
    const secret = (await callbackInfo(gw, channel)).secrets.signing_secret!;
    const post = (body: Record<string, unknown>) => postConnector(gw, 'chat_d', channel, JSON.stringify(body), secret);
    const text = JSON.parse(fixture('connector/message-text'));
    expect((await post(text)).status).toBe(200);
    const known = (await conversationWith(gw, company, '491701234567')).id as number;
    // Incoming messages of the known conversation, or of a group (its author in details).
    const filter = {
      and: [
        { path: 'type', op: 'eq', value: 'message' },
        { path: 'object.income', op: 'eq', value: true },
        {
          or: [
            { path: 'object.conversation_id', op: 'in', value: [known, 999_999] },
            { path: 'object.details.sender', op: 'exists' },
          ],
        },
      ],
    };
    const filtered = await startReceiver(() => []);
    const everything = await startReceiver(() => []);
    receivers.push(filtered, everything);
    let filteredId = 0;
    for (const [url, endpointFilter] of [
      [filtered.url, filter],
      [everything.url, undefined],
    ] as const) {
      const res = await gw.request('POST', hooksPath(company), { json: { url, active: true, filter: endpointFilter } });
      expect(res.status, res.text).toBe(201);
      if (endpointFilter !== undefined) filteredId = res.body.webhook.id;
    }
    // Each: a message.create; the new chats open a conversation, the reply from the phone marks one
    // replied, the group's first author joins it (group_conversation_contact.new).
    expect((await post({ ...text, id: 'F1' })).status).toBe(200); // incoming, known conversation: matches
    expect((await post({ ...JSON.parse(fixture('connector/message-from-me')), id: 'F2' })).status).toBe(200);
    expect((await post({ ...text, id: 'F3', chat: { ...text.chat, id: '491709999999' } })).status).toBe(200);
    expect((await post({ ...JSON.parse(fixture('connector/message-group')), id: 'F4' })).status).toBe(200); // matches
    const names = () => everything.received.map((hook) => `${(hook.body as any).type}.${(hook.body as any).event}`);
    await eventually('every event at the unfiltered endpoint', () => everything.received.length === 8);
    expect(names().sort()).toEqual(
      [
        'message.create',
        'message.create',
        'conversation.update',
        'conversation.create',
        'message.create',
        'conversation.create',
        'group_conversation_contact.new',
        'message.create',
      ].sort(),
    );
    const eventOf = (externalId: string) =>
      everything.received.find((hook) => (hook.body as any).object?.external_id === externalId)!.id;
    const matching = [eventOf('F1'), eventOf('F4')].sort();
    await eventually('the matching events at the filtered one', () => filtered.received.length === 2);
    expect(filtered.received.map((hook) => hook.id).sort()).toEqual(matching);
    // Not queued at all: the other events have no delivery to the filtered endpoint. Every event
    // reached the unfiltered one, so each was fanned out to both (one transaction an event).
    const deliveries = await gw.admin('GET', `/admin/deliveries?company_id=${company}&endpoint_id=${filteredId}`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.deliveries.map((d: { event_id: string }) => d.event_id).sort()).toEqual(matching);
  });
});
