// v1 as the hosted service's pages document it (pact-im/api-doc, _includes/v1_*.md), where the
// contract is silent: through the real v1 API, the fake connector, and a real webhook receiver at
// the company's webhook_url that verifies every delivery with the standardwebhooks package.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationV1Event, messageV1Event } from '../../schemas/events/messaging-v1.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import {
  ADMIN_TOKEN,
  expectErrorShape,
  failingFields,
  startTestGateway,
  type TestGateway,
} from '../helpers/gateway.js';
import { readQr } from '../helpers/qr.js';
import { compileSchema, schemaErrors } from '../helpers/schemas.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';
import { newCompany } from '../helpers/seed.js';

let gw: TestGateway;
let fake: FakeProvider;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** Every signing secret of the endpoints the tests created; a delivery names the ones that verified it. */
const secrets: string[] = [];

beforeAll(async () => {
  fake = await new FakeProvider().start();
  receiver = await startReceiver(() => secrets);
  gw = await startTestGateway({
    ...fake.env(),
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_PROVIDER_RETRY_SCHEDULE: '100ms',
    GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  });
});
afterAll(async () => {
  await gw.close();
  await receiver.close();
  await fake.close();
});

const store = () => gw.gateway.store;
type Hook = Record<string, any>;

/** A company whose webhook_url is the receiver; answers its id and the secret its deliveries are signed with. */
async function newV1Company(webhookUrl: string | null = receiver.url): Promise<{ id: number; secret: number }> {
  const id = await newCompany(gw, { webhook_url: webhookUrl });
  const endpoint = store().webhooks.companyEndpoint(id);
  if (endpoint !== undefined) secrets.push(endpoint.secret);
  return { id, secret: secrets.length - 1 };
}
async function newChannel(company: number, body: Record<string, unknown>): Promise<number> {
  const res = await gw.request('POST', `/p1/companies/${company}/channels`, { json: body });
  expect(res.status).toBe(201);
  return res.body.data.external_id;
}
async function connectedChatA(company: number): Promise<number> {
  const channel = await newChannel(company, { provider: 'chat_a' });
  expect(await fake.connectorCallback(channel, { type: 'state', state: 'enabled' })).toBe(200);
  return channel;
}
const channelPath = (company: number, channel: number, action: string) =>
  `/p1/companies/${company}/channels/${channel}/${action}`;
/** What the receiver got for this company, each delivery checked to be signed with the company endpoint's secret. */
function hooksOf(company: { id: number; secret: number }): Hook[] {
  const hooks = receiver.received.filter((h) => (h.body as Hook).company_id === company.id);
  for (const hook of hooks) expect(hook.verifiedBy).toEqual([company.secret]);
  return hooks.map((h) => h.body as Hook);
}
const isTest = (hook: Hook) => hook.operation === 'test';
const v1Schemas = { message: compileSchema(messageV1Event), conversation: compileSchema(conversationV1Event) };
/** Every v1 message and conversation payload the company got matches its schema (schemas/events/messaging-v1.ts). */
function expectV1Shapes(hooks: Hook[]): void {
  for (const hook of hooks.filter((h) => h.type === 'message' || h.type === 'conversation')) {
    const validate = v1Schemas[hook.type as 'message' | 'conversation'];
    expect(validate(hook), schemaErrors(validate)).toBe(true);
  }
}
/** `2017-11-11 12:45:53 UTC`, as the v1 pages write times. */
const v1Time = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

describe('pact-im/api-doc _includes/v1_companies.md: a webhook_url gets the test POST', () => {
  it('when set at create and when changed, signed like every delivery; not when unchanged, and never to other endpoints', async () => {
    const company = await newV1Company(`${receiver.url}?first`);
    await eventually('the test POST', () => hooksOf(company).length === 1);
    expect(hooksOf(company)).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        source: 'gateway',
        operation: 'test',
        company_id: company.id,
        created_at: expect.any(String),
      },
    ]);

    const v2 = await gw.request('POST', `/api/p2/companies/${company.id}/webhooks`, {
      json: { url: `${receiver.url}?v2` },
    });
    expect(v2.status).toBe(201);
    secrets.push(v2.body.webhook.secret);
    expect(
      (
        await gw.request('PUT', `/p1/companies/${company.id}`, {
          json: { name: 'Renamed', webhook_url: `${receiver.url}?first` },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await gw.request('PUT', `/p1/companies/${company.id}`, {
          form: `webhook_url=${encodeURIComponent(`${receiver.url}?second`)}`,
        })
      ).status,
    ).toBe(200);
    await eventually('the second test POST', () => hooksOf(company).filter(isTest).length === 2);
    // hooksOf checked each was verified by the webhook_url's secret alone: the v2 endpoint got none.
    expect(receiver.received.filter((h) => h.verifiedBy.includes(secrets.length - 1))).toEqual([]);
  });

  it('no test POST for a company without webhook_url', async () => {
    const company = await newV1Company(null);
    const events = store()
      .db.prepare<[number], { n: number }>(
        "SELECT count(*) AS n FROM outbox WHERE stream = 'gateway.events' AND key = ?",
      )
      .get(company.id)!.n;
    expect(events).toBe(0);
  });
});

describe('pact-im/api-doc _includes/v1_channels.md ("How to write first message") and _includes/v1_jobs.md', () => {
  it('answers the job trying_deliver; GET .../jobs/<id> polls it until delivered; webhook_url gets the job result, integer ids and unix date, and no v2 envelope', async () => {
    const company = await newV1Company();
    const channel = await connectedChatA(company.id);
    const started = Math.floor(Date.now() / 1000);
    const res = await gw.request('POST', channelPath(company.id, channel, 'conversations'), {
      form: 'phone=79250000001&message=Hello',
    });
    expect(res.status).toBe(201);
    const job = res.body.data;
    expect(res.body).toEqual({
      status: 'ok',
      data: {
        id: expect.any(Number),
        company_id: company.id,
        channel: { id: channel, type: 'chat_a' },
        state: 'trying_deliver',
        conversation_id: expect.any(Number),
        message_id: expect.any(Number),
        details: null,
        created_at: expect.any(Number),
      },
    });
    expect(job.created_at).toBeGreaterThanOrEqual(started);
    expect(job.created_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(store().messages.findById(job.message_id)!.conversation_id).toBe(job.conversation_id);

    const jobPath = channelPath(company.id, channel, `jobs/${job.id}`);
    await eventually(
      'the job is delivered',
      async () => (await gw.request('GET', jobPath)).body.data.state !== 'trying_deliver',
    );
    expect((await gw.request('GET', jobPath)).body).toEqual({
      status: 'ok',
      data: { ...job, state: 'delivered', details: { result: 'DELIVERED' } },
    });
    // The job id is not the connector's idempotency key: that stays the send's own id, one per job.
    expect(fake.callsOf('connector', `/sessions/${channel}/messages`).at(-1)!.headers['idempotency-key']).toMatch(
      /^job_[0-9a-f]{32}$/,
    );

    await eventually('the job webhook', () => hooksOf(company).some((h) => h.type === 'job'));
    const executed = hooksOf(company).find((h) => h.type === 'job')!;
    expect(executed).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'job',
      event: 'executed',
      company_id: company.id,
      created_at: expect.any(String),
      data: {
        id: job.id,
        result: 'DELIVERED',
        message_id: job.message_id,
        external_id: store().messages.findById(job.message_id)!.external_id,
        date: expect.any(Number),
      },
    });
    expect(executed.data.date).toBeGreaterThanOrEqual(job.created_at);
    // The same send's conversation and message events reach the v1 webhook_url in their v1 rendition, never as v2 envelopes.
    expect(hooksOf(company).filter((h) => 'object' in h)).toEqual([]);
    await eventually('the message ack', () => hooksOf(company).some((h) => h.type === 'message' && h.event === 'ack'));
    expect(
      hooksOf(company).map((h) => `${h.type ?? h.operation}${h.event === undefined ? '' : `/${h.event}`}`),
    ).toEqual([
      'test',
      'qr_code/new',
      'system',
      'conversation/new',
      'message/new',
      'conversation/update',
      'message/ack',
      'job/executed',
    ]);
    const message = store().messages.findById(job.message_id)!;
    const sentNew = hooksOf(company).find((h) => h.type === 'message' && h.event === 'new')!;
    expect(sentNew.data).toEqual({
      external_id: job.message_id,
      external_public_id: null,
      channel_id: channel,
      channel_type: 'chat_a',
      channel: { id: channel, type: 'chat_a' },
      conversation_id: job.conversation_id,
      message: 'Hello',
      location: null,
      income: false,
      created_at: v1Time(message.created_at),
      created_at_timestamp: Math.floor(message.created_at / 1000),
      ack: 1,
      attachments: [],
      job_id: job.id,
    });
    expect(hooksOf(company).find((h) => h.event === 'ack')!.data).toEqual({
      external_id: job.message_id,
      channel: { id: channel, type: 'chat_a' },
      conversation_id: job.conversation_id,
      ack: 1,
    });
    expectV1Shapes(hooksOf(company));
  });

  it('a refusal: the job ends not_delivered with the reason, and the job result says NOT DELIVERED with it', async () => {
    const company = await newV1Company();
    const channel = await connectedChatA(company.id);
    fake.script('connector', {
      status: 400,
      body: { error: { code: 'recipient_refused', title: 'The number is not on the network' } },
    });
    const res = await gw.request('POST', channelPath(company.id, channel, 'conversations'), {
      json: { phone: '79250000002', message: 'Hi' },
    });
    const jobPath = channelPath(company.id, channel, `jobs/${res.body.data.id}`);
    await eventually(
      'the job is finished',
      async () => (await gw.request('GET', jobPath)).body.data.state !== 'trying_deliver',
    );
    expect((await gw.request('GET', jobPath)).body.data).toMatchObject({
      state: 'not_delivered',
      details: { result: 'NOT DELIVERED', reason: 'The number is not on the network' },
    });
    await eventually('the job webhook', () => hooksOf(company).some((h) => h.type === 'job'));
    expect(hooksOf(company).find((h) => h.type === 'job')!.data).toEqual({
      id: res.body.data.id,
      result: 'NOT DELIVERED',
      message_id: res.body.data.message_id,
      external_id: null,
      date: expect.any(Number),
      reason: 'The number is not on the network',
    });
  });

  it("a job is shown only under its own company and channel; the curl example's text= is the message", async () => {
    const company = await newV1Company(null);
    const channel = await connectedChatA(company.id);
    const sent = await gw.request('POST', channelPath(company.id, channel, 'conversations'), {
      form: 'phone=79250000003&text=From%20the%20curl%20example',
    });
    expect(sent.status).toBe(201);
    expect(store().messages.findById(sent.body.data.message_id)!.text).toBe('From the curl example');
    expect(
      failingFields(
        await gw.request('POST', channelPath(company.id, channel, 'conversations'), {
          json: { phone: '79250000003', text: 'a', message: 'b' },
        }),
      ),
    ).toEqual(['text']);

    const other = await newV1Company(null);
    const otherChannel = await connectedChatA(other.id);
    const id = sent.body.data.id as number;
    expect((await gw.request('GET', channelPath(company.id, channel, `jobs/${id}`))).status).toBe(200);
    expectErrorShape(await gw.request('GET', channelPath(other.id, otherChannel, `jobs/${id}`)), 404, 'not_found');
    expectErrorShape(await gw.request('GET', channelPath(company.id, channel, `jobs/${id + 1000}`)), 404, 'not_found');
    expectErrorShape(await gw.request('GET', channelPath(company.id, channel, 'jobs/abc')), 404, 'not_found');
    expectErrorShape(
      await gw.request('GET', channelPath(company.id, channel, `jobs/${id}`), {
        token: await gw.createAccount('stranger'),
      }),
      404,
      'not_found',
    );
    expectErrorShape(
      await gw.request('GET', channelPath(company.id, channel, `jobs/${id}`), { token: null }),
      401,
      'unauthorized',
    );
  });
});

describe('pact-im/api-doc _includes/v1_channels.md ("How to check if user has Whatsapp account")', () => {
  it('GET .../user_exists?phone= answers {status: ok, exists} as the connector says', async () => {
    const company = await newV1Company(null);
    const channel = await newChannel(company.id, { provider: 'chat_a' });
    const check = (query: string) => gw.request('GET', `${channelPath(company.id, channel, 'user_exists')}${query}`);
    expectErrorShape(await check('?phone=79250000001'), 409, 'conflict');
    expect(await fake.connectorCallback(channel, { type: 'state', state: 'enabled' })).toBe(200);
    fake.knownPhones.add('79250000001');
    expect((await check('?phone=79250000001')).body).toEqual({ status: 'ok', exists: true });
    expect((await check('?phone=79250000009')).body).toEqual({ status: 'ok', exists: false });
    expect(fake.callsOf('connector', `/sessions/${channel}/contacts/79250000009`)).toHaveLength(1);
    expect(failingFields(await check(''))).toEqual(['phone']);
    expect(failingFields(await check('?phone=%2B79250000001'))).toEqual(['phone']);
    fake.script('connector', { status: 500, body: { error: { code: 'down', title: 'restarting' } } });
    expectErrorShape(await check('?phone=79250000001'), 502, 'provider_unavailable');
    const bot = await newChannel(company.id, { provider: 'chat_b', token: '1:bot' });
    expectErrorShape(
      await gw.request('GET', `${channelPath(company.id, bot, 'user_exists')}?phone=79250000001`),
      422,
      'wrong_provider',
    );
  });
});

describe('pact-im/api-doc _includes/v1_webhooks.md: channel webhooks at the webhook_url', () => {
  it('a new QR as {type: qr_code, event: new, data: <base64 PNG>}, then authorized, phone offline and synchronized as system notices; no v2 auth event', async () => {
    const company = await newV1Company();
    const channel = await newChannel(company.id, { provider: 'chat_a' });
    expect(await fake.connectorCallback(channel, { type: 'qr', qr: '2@second-qr-of-the-session' })).toBe(200);
    expect(await fake.connectorCallback(channel, { type: 'state', state: 'enabled' })).toBe(200);
    expect(await fake.connectorCallback(channel, { type: 'notice', notice: 'phone_offline' })).toBe(200);
    expect(
      await fake.connectorCallback(channel, { type: 'notice', notice: 'synchronized', timestamp: 1_749_416_400 }),
    ).toBe(200);
    await eventually('the notices', () => hooksOf(company).length === 6);
    const hooks = hooksOf(company);
    expect(hooks.map((h) => (h.type === 'system' ? `system:${h.data.message}` : (h.type ?? h.operation)))).toEqual([
      'test',
      'qr_code',
      'qr_code',
      'system:authorized',
      'system:phone offline',
      'system:synchronized',
    ]);
    const base = { entity: 'channel', company_id: company.id, channel_id: channel, channel_type: 'chat_a' };
    expect(hooks[1]).toEqual({
      id: expect.any(String),
      created_at: expect.any(String),
      type: 'qr_code',
      event: 'new',
      ...base,
      data: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
    });
    expect(readQr(hooks[1]!.data)).toBe(`2@fakeqr${channel}`);
    expect(readQr(hooks[2]!.data)).toBe('2@second-qr-of-the-session');
    expect(hooks[3]).toMatchObject({
      type: 'system',
      severity: 'information',
      ...base,
      data: { message: 'authorized', details: { entity: 'channel', entity_id: channel } },
    });
    expect(hooks[4]).toMatchObject({ type: 'system', severity: 'critical', data: { message: 'phone offline' } });
    expect(hooks[5]!.data).toEqual({
      message: 'synchronized',
      date: '2025-06-08 21:00:00 UTC',
      date_timestamp: 1_749_416_400,
      timestamp: expect.any(Number),
      details: { entity: 'channel', entity_id: channel },
    });
  });

  it("the webhook_url's event filter takes the names it has a v1 payload for (422 naming v2-only ones)", async () => {
    const company = await newV1Company();
    const mirror = store().webhooks.companyEndpoint(company.id)!;
    const path = `/api/p2/companies/${company.id}/webhooks/${mirror.id}`;
    expect(
      failingFields(await gw.request('PATCH', path, { json: { event_types: ['job.executed', 'auth.update'] } })),
    ).toEqual(['event_types']);
    expect(failingFields(await gw.request('PATCH', path, { json: { event_types: ['webhook.disabled'] } }))).toEqual([
      'event_types',
    ]);
    expect(
      (await gw.request('PATCH', path, { json: { event_types: ['job.executed', 'channel.state', 'message.create'] } }))
        .status,
    ).toBe(200);
  });
});

describe('pact-im/api-doc _includes/v1_webhooks.md: messages and conversations at the webhook_url', () => {
  it('an incoming message: {type: conversation, event: new} then {type: message, event: new}, with integer ids and v1 times; a v2 endpoint of the company gets the v2 envelopes of the same events', async () => {
    const company = await newV1Company();
    const channel = await connectedChatA(company.id);
    const v2 = await gw.request('POST', `/api/p2/companies/${company.id}/webhooks`, {
      json: { url: `${receiver.url}?v2-envelopes`, active: true },
    });
    expect(v2.status).toBe(201);
    secrets.push(v2.body.webhook.secret);
    const v2Secret = secrets.length - 1;
    expect(
      await fake.connectorCallback(channel, {
        type: 'message',
        id: 'IN-1',
        chat: { id: '491701234567', name: 'Jonas Weber', phone: '+491701234567' },
        timestamp: 1749416383,
        text: 'Guten Tag!',
      }),
    ).toBe(200);

    await eventually(
      'conversation/new and message/new',
      () => hooksOf(company).filter((h) => h.type === 'conversation' || h.type === 'message').length === 2,
    );
    const [conversationNew, messageNew] = hooksOf(company).filter(
      (h) => h.type === 'conversation' || h.type === 'message',
    );
    const message = store().messages.findById(messageNew!.data.external_id)!;
    const conversation = store().conversations.find(company.id, message.conversation_id)!;
    expect(conversationNew).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: 'conversation',
      event: 'new',
      company_id: company.id,
      created_at: expect.any(String),
      data: {
        external_id: conversation.id,
        name: 'Jonas Weber',
        avatar_url: conversation.contact_avatar_url,
        channel_id: channel,
        channel_type: 'chat_a',
        created_at: v1Time(conversation.created_at),
        created_at_timestamp: Math.floor(conversation.created_at / 1000),
        last_message_at: null,
        last_income_message_at: null,
        sender_external_id: '491701234567',
      },
    });
    expect(messageNew).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: 'message',
      event: 'new',
      company_id: company.id,
      created_at: expect.any(String),
      data: {
        external_id: message.id,
        external_public_id: 'IN-1',
        channel_id: channel,
        channel_type: 'chat_a',
        channel: { id: channel, type: 'chat_a' },
        conversation_id: conversation.id,
        message: 'Guten Tag!',
        location: null,
        income: true,
        created_at: v1Time(message.created_at),
        created_at_timestamp: Math.floor(message.created_at / 1000),
        ack: message.status === 'created' ? 0 : 1,
        attachments: [],
      },
    });
    expectV1Shapes([conversationNew!, messageNew!]);
    // One event, two renditions: the v2 endpoint got the envelopes under the same webhook-ids.
    await eventually(
      'the v2 envelopes',
      () => receiver.received.filter((h) => h.verifiedBy.includes(v2Secret)).length === 2,
    );
    const envelopes = receiver.received.filter((h) => h.verifiedBy.includes(v2Secret));
    expect(envelopes.map((h) => [h.id, (h.body as Hook).type, (h.body as Hook).event])).toEqual([
      [conversationNew!.id, 'conversation', 'create'],
      [messageNew!.id, 'message', 'create'],
    ]);
  });
});
