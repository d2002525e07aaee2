// Sending through the senders besides the cloud-style one (docs/decisions.md "Provider connectors"),
// against a local fake provider: the bot-style API (chat_b) with its reply reference, refusal and
// retry_after, and our connector protocol (chat_d, docs/connector-protocol.md "Calls from the
// gateway"), whose retried send carries the same Idempotency-Key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackInfo, postConnector } from '../helpers/callbacks.js';
import { emittedEvents } from '../helpers/events.js';
import type { FakeProvider } from '../helpers/fake-provider.js';
import type { TestGateway } from '../helpers/gateway.js';
import { seedConversation } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';
import { sendHelpers, startSendGateway } from './send-fixtures.js';

let gw: TestGateway;
let fake: FakeProvider;
let companyId: number;
let close: () => Promise<void>;
const { store, message, send, updatesOf } = sendHelpers(() => ({ gw, companyId }));

beforeAll(async () => {
  ({ gw, fake, companyId, close } = await startSendGateway());
});
afterAll(() => close?.());

describe('bot-style sender (chat_b)', () => {
  let channelId: number;
  let conversationId: number;

  beforeAll(async () => {
    channelId = (
      await gw.request('POST', `/p1/companies/${companyId}/channels`, {
        json: { provider: 'chat_b', token: '123456:bot-secret-token' },
      })
    ).body.data.external_id;
    conversationId = seedConversation(
      gw,
      { companyId, channelId },
      { sender: '777000111', externalTimes: [Date.now()] },
    ).conversationId;
    store()
      .db.prepare("UPDATE messages SET external_id = '777000111:55' WHERE conversation_id = ?")
      .run(conversationId);
  });

  it('calls sendMessage with the reply reference and records <chat>:<message id>', async () => {
    const before = emittedEvents(store()).length;
    const calls = fake.callsOf('bot').length;
    const id = await send(conversationId, { text: 'Hello from the bot', replied_to_id: '777000111:55' });
    await eventually('the provider took the message', () => message(id).external_id !== null);
    const call = fake.callsOf('bot')[calls]!;
    expect(call.path).toBe('/bot123456:bot-secret-token/sendMessage');
    expect(call.body).toEqual({
      chat_id: '777000111',
      text: 'Hello from the bot',
      reply_parameters: { message_id: 55, allow_sending_without_reply: true },
    });
    expect(message(id).external_id).toMatch(/^777000111:\d+$/);
    expect(updatesOf(id, before)).toEqual([{ status: 'sent', external_id: message(id).external_id }]);
    expect(gw.logText()).not.toContain('bot-secret-token');
  });

  it('a refusal ({ok: false, error_code: 403}) ends in error with the description', async () => {
    fake.script('bot', {
      status: 403,
      body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
    });
    const id = await send(conversationId, { text: 'Blocked' });
    await eventually('the message is in error', () => message(id).status === 'error');
    expect(JSON.parse(message(id).details!)).toEqual({
      errors: [{ code: 'provider_403', title: 'Forbidden: bot was blocked by the user' }],
    });
  });

  it('honours retry_after of a 429 and sends once more', async () => {
    const calls = fake.callsOf('bot').length;
    fake.script('bot', {
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 1',
        parameters: { retry_after: 1 },
      },
    });
    const started = Date.now();
    const id = await send(conversationId, { text: 'Slow down' });
    await eventually('the provider took the message', () => message(id).external_id !== null);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(fake.callsOf('bot').length - calls).toBe(2);
  });
});

describe('connector-protocol sender (chat_d)', () => {
  let channelId: number;
  let conversationId: number;

  beforeAll(async () => {
    channelId = (await gw.request('POST', `/api/p2/companies/${companyId}/auths`, { json: { provider: 'chat_d' } }))
      .body.auth.id;
    const secret = (await callbackInfo(gw, channelId)).secrets.signing_secret!;
    expect(
      (await postConnector(gw, 'chat_d', channelId, JSON.stringify({ type: 'state', state: 'enabled' }), secret))
        .status,
    ).toBe(200);
    conversationId = seedConversation(gw, { companyId, channelId }, { sender: '491709999999' }).conversationId;
  });

  it('posts the message with the job id as idempotency key; a retried send is the same send at the connector', async () => {
    const calls = fake.callsOf('connector', '/messages').length;
    fake.script('connector', { status: 502, body: { error: { code: 'upstream', title: 'phone offline' } } });
    const id = await send(conversationId, { text: 'Hallo' });
    await eventually('the provider took the message', () => message(id).external_id !== null);
    const tries = fake.callsOf('connector', '/messages').slice(calls);
    expect(tries).toHaveLength(2);
    expect(tries[0]!.path).toBe(`/connector/sessions/${channelId}/messages`);
    expect(tries[0]!.headers['idempotency-key']).toMatch(/^job_[0-9a-f]{32}$/);
    expect(tries[1]!.headers['idempotency-key']).toBe(tries[0]!.headers['idempotency-key']);
    expect(tries[1]!.body).toEqual({
      to: { id: '491709999999', phone: null },
      text: 'Hallo',
      attachment: null,
      reply_to: null,
    });
    expect(message(id).external_id).toMatch(/^CONN\d+$/);
  });
});
