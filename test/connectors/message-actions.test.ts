// The company's reactions, edits and read receipts at each family's real API shape (a local fake
// provider): what each connector calls, and what comes back as `message.update`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackInfo, checkedEvents, postConnector, seedOutgoing } from '../helpers/callbacks.js';
import { emittedEvents, outboxMessages } from '../helpers/events.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { seedConversation } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';
import { newCompany } from '../helpers/seed.js';

let gw: TestGateway;
let fake: FakeProvider;
let companyId: number;

beforeAll(async () => {
  fake = await new FakeProvider().start();
  gw = await startTestGateway({
    ...fake.env(),
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_PROVIDER_RETRY_SCHEDULE: '100ms,100ms',
  });
  companyId = await newCompany(gw, { name: 'Actions Co' });
});
afterAll(async () => {
  await gw.close();
  await fake.close();
});

const store = () => gw.gateway.store;
const messagePath = (conversation: number, message: number) =>
  `/api/p2/conversations/${conversation}/messages/${message}`;
const api = (method: string, path: string, json: Record<string, unknown> = {}) =>
  gw.request(method, path, { json: { company_id: companyId, ...json } });

/** The message objects of the message.update events of one message after `before`. */
const updatesOf = (id: number, before: number) =>
  checkedEvents(store(), before)
    .filter((e) => e.name === 'message.update' && (e.body.object as { id: number }).id === id)
    .map((e) => e.body.object as { reactions: unknown[]; message: string | null; details: Record<string, unknown> });

describe('cloud-style (chat_a_business)', () => {
  let conversation: number;
  let incoming: number;

  beforeAll(async () => {
    const auth = await gw.request('POST', `/api/p2/companies/${companyId}/auths`, {
      json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 'EAAG-cloud-token', vendor_channel_id: 'PN1' },
    });
    const seeded = seedConversation(
      gw,
      { companyId, channelId: auth.body.auth.id },
      { sender: '491701234567', externalTimes: [Date.now()] },
    );
    conversation = seeded.conversationId;
    incoming = seeded.messageIds[0]!;
  });

  it('sends a reaction message to the message, then message.update with the company’s reaction', async () => {
    const before = emittedEvents(store()).length;
    const calls = fake.callsOf('cloud', '/messages').length;
    const res = await api('POST', `${messagePath(conversation, incoming)}/reactions`, { emoji: '🎉' });
    expect(res.status).toBe(202);
    await eventually('the update', () => updatesOf(incoming, before).length === 1);
    expect(fake.callsOf('cloud', '/messages').slice(calls)).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/v21.0/PN1/messages',
        body: {
          messaging_product: 'chat_a',
          recipient_type: 'individual',
          to: '491701234567',
          type: 'reaction',
          reaction: { message_id: 'ext-491701234567-0', emoji: '🎉' },
        },
      }),
    ]);
    expect(fake.callsOf('cloud').at(-1)!.headers.authorization).toBe('Bearer EAAG-cloud-token');
    expect(updatesOf(incoming, before)[0]!.reactions).toEqual([
      { emoji: '🎉', from: 'company', created_at: expect.any(String) },
    ]);
  });

  it('marks the message read at the provider when the conversation is marked read', async () => {
    store().db.prepare('UPDATE conversations SET unread_count = 1 WHERE id = ?').run(conversation);
    const calls = fake.callsOf('cloud', '/messages').length;
    const res = await api('POST', `/api/p2/conversations/${conversation}/read`);
    expect([res.status, res.body.conversation.unread_count]).toEqual([200, 0]);
    await eventually('the read call', () => fake.callsOf('cloud', '/messages').length === calls + 1);
    expect(fake.callsOf('cloud', '/messages').at(-1)!.body).toEqual({
      messaging_product: 'chat_a',
      status: 'read',
      message_id: 'ext-491701234567-0',
    });
  });
});

describe('bot-style (chat_b)', () => {
  let conversation: number;
  let incoming: number;
  let outgoing: number;

  beforeAll(async () => {
    const channelId = (
      await gw.request('POST', `/p1/companies/${companyId}/channels`, {
        json: { provider: 'chat_b', token: '123456:bot-secret-token' },
      })
    ).body.data.external_id as number;
    const seeded = seedConversation(gw, { companyId, channelId }, { sender: '777000111', externalTimes: [Date.now()] });
    conversation = seeded.conversationId;
    incoming = seeded.messageIds[0]!;
    store().db.prepare("UPDATE messages SET external_id = '777000111:55' WHERE id = ?").run(incoming);
    outgoing = seedOutgoing(store(), conversation, companyId, '777000111:56');
  });

  it('setMessageReaction adds and removes the reaction; editMessageText edits; each comes back as message.update', async () => {
    const before = emittedEvents(store()).length;
    const calls = fake.callsOf('bot').length;
    expect((await api('POST', `${messagePath(conversation, incoming)}/reactions`, { emoji: '👍' })).status).toBe(202);
    await eventually('the reaction', () => updatesOf(incoming, before).length === 1);
    expect((await api('DELETE', `${messagePath(conversation, incoming)}/reactions`)).status).toBe(202);
    await eventually('the removal', () => updatesOf(incoming, before).length === 2);
    expect((await api('PATCH', messagePath(conversation, outgoing), { text: 'Shipped today' })).status).toBe(202);
    await eventually('the edit', () => updatesOf(outgoing, before).length === 1);

    expect(
      fake
        .callsOf('bot')
        .slice(calls)
        .map((c) => [c.path, c.body]),
    ).toEqual([
      [
        '/bot123456:bot-secret-token/setMessageReaction',
        { chat_id: '777000111', message_id: 55, reaction: [{ type: 'emoji', emoji: '👍' }] },
      ],
      ['/bot123456:bot-secret-token/setMessageReaction', { chat_id: '777000111', message_id: 55, reaction: [] }],
      ['/bot123456:bot-secret-token/editMessageText', { chat_id: '777000111', message_id: 56, text: 'Shipped today' }],
    ]);
    expect(updatesOf(incoming, before).map((m) => m.reactions)).toEqual([
      [{ emoji: '👍', from: 'company', created_at: expect.any(String) }],
      [],
    ]);
    expect(updatesOf(outgoing, before)[0]).toMatchObject({
      message: 'Shipped today',
      details: { edited_at: expect.any(String) },
    });
  });

  it('sends no read receipt: the bot API takes none', async () => {
    store().db.prepare('UPDATE conversations SET unread_count = 3 WHERE id = ?').run(conversation);
    const calls = fake.calls.length;
    const jobs = () => outboxMessages(store(), 'gateway.outbound').length;
    const queued = jobs();
    const res = await api('POST', `/api/p2/conversations/${conversation}/read`);
    expect([res.status, res.body.conversation.unread_count]).toEqual([200, 0]);
    expect(jobs()).toBe(queued);
    expect(fake.calls.length).toBe(calls);
  });
});

describe('connector protocol (chat_d)', () => {
  let channelId: number;
  let secret: string;

  beforeAll(async () => {
    channelId = (await gw.request('POST', `/api/p2/companies/${companyId}/auths`, { json: { provider: 'chat_d' } }))
      .body.auth.id;
    secret = (await callbackInfo(gw, channelId)).secrets.signing_secret!;
    const state = JSON.stringify({ type: 'state', state: 'enabled' });
    expect((await postConnector(gw, 'chat_d', channelId, state, secret)).status).toBe(200);
  });

  it('PUTs the reaction, PATCHes the message and POSTs read with the job id as idempotency key; a 503 is tried again', async () => {
    const event = { type: 'message', id: 'CONN/IN 1', chat: { id: '491709999999' }, timestamp: 1749416383, text: 'Hi' };
    expect((await postConnector(gw, 'chat_d', channelId, JSON.stringify(event), secret)).status).toBe(200);
    const incoming = store().messages.findByChannelExternalId(channelId, 'CONN/IN 1')!;
    const conversation = incoming.conversation_id;
    const outgoing = seedOutgoing(store(), conversation, companyId, 'CONN-OUT-1');
    const before = emittedEvents(store()).length;
    const calls = fake.callsOf('connector', `/sessions/${channelId}/`).length;

    fake.script('connector', { status: 503, body: { error: { code: 'busy', title: 'phone offline' } } });
    expect((await api('POST', `${messagePath(conversation, incoming.id)}/reactions`, { emoji: '🙏' })).status).toBe(
      202,
    );
    await eventually('the reaction', () => updatesOf(incoming.id, before).length === 1, 5_000);
    expect((await api('PATCH', messagePath(conversation, outgoing), { text: 'Fixed typo' })).status).toBe(202);
    await eventually('the edit', () => updatesOf(outgoing, before).length === 1, 5_000);
    const read = await api('POST', `/api/p2/conversations/${conversation}/read`);
    expect([read.status, read.body.conversation.unread_count]).toEqual([200, 0]);
    await eventually('the read call', () => fake.callsOf('connector', '/read').length === 1, 5_000);

    const made = fake.callsOf('connector', `/sessions/${channelId}/`).slice(calls);
    const session = `/connector/sessions/${channelId}`;
    expect(made.map((c) => [c.method, c.path, c.body])).toEqual([
      ['PUT', `${session}/messages/CONN%2FIN%201/reaction`, { chat_id: '491709999999', emoji: '🙏' }],
      ['PUT', `${session}/messages/CONN%2FIN%201/reaction`, { chat_id: '491709999999', emoji: '🙏' }],
      ['PATCH', `${session}/messages/CONN-OUT-1`, { chat_id: '491709999999', text: 'Fixed typo' }],
      ['POST', `${session}/read`, { chat_id: '491709999999', up_to: 'CONN/IN 1' }],
    ]);
    const keys = made.map((c) => c.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^job_[0-9a-f]{32}$/);
    // The retry is the same job: the same key.
    expect(keys[1]).toBe(keys[0]);
    expect(new Set(keys).size).toBe(3);
    expect(made.every((c) => c.headers.authorization === 'Bearer connector-token-of-the-tests')).toBe(true);
  });
});
