// v1 webhooks as the hosted service's pages document them (pact-im/api-doc, _includes/v1_companies.md
// and _includes/v1_webhooks.md), where the contract is silent: what a company's webhook_url gets (its
// test POST, channel notices, conversations and messages), through the real v1 API, the fake
// connector, and a real webhook receiver that verifies every delivery with the standardwebhooks package.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeProvider } from '../helpers/fake-provider.js';
import { failingFields, type TestGateway } from '../helpers/gateway.js';
import { readQr } from '../helpers/qr.js';
import type { Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';
import {
  compatV1Helpers,
  expectV1Shapes,
  isTest,
  startCompatV1Gateway,
  v1Time,
  type Hook,
} from './compat-v1-fixtures.js';

let gw: TestGateway;
let fake: FakeProvider;
let receiver: Receiver;
let close: () => Promise<void>;
const { secrets, store, newV1Company, newChannel, connectedChatA, hooksOf } = compatV1Helpers(() => ({
  gw,
  fake,
  receiver,
}));

beforeAll(async () => {
  ({ gw, fake, receiver, close } = await startCompatV1Gateway(() => secrets));
});
afterAll(() => close?.());

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
