// Connector-protocol callbacks through HTTP alone: what each stores is read back through the v2 API
// and what it emits arrives as webhooks (test/helpers/company-events.ts), so this file runs against
// a cluster too (vitest.cluster.config.ts). Which events claim a receipt, and the provider's media
// reference, no API shows: written-rows.test.ts reads them.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readQr } from '../helpers/qr.js';
import { expectErrorShape, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { callbackInfo, connectorHeaders, fixture, messageOfEvent, postConnector } from '../helpers/callbacks.js';
import { observeCompanyEvents, type CompanyEvents } from '../helpers/company-events.js';
import { messageWithExternalId, messagingState } from '../helpers/company-messages.js';

let gw: TestGateway;
let events: CompanyEvents;
let companyId: number;
/** chat_a created through v1: also gets the v1 channel payloads. */
let v1Channel: number;
let v1Secret: string;
/** chat_d created through v2: auth events only. */
let v2Channel: number;
let v2Secret: string;

beforeAll(async () => {
  gw = await startTestGateway(TO_RECEIVERS);
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Connector Co' } })).body.data.external_id;
  events = await observeCompanyEvents(gw, companyId);
  v1Channel = (await gw.request('POST', `/p1/companies/${companyId}/channels`, { json: { provider: 'chat_a' } })).body
    .data.external_id;
  v2Channel = (await gw.request('POST', `/api/p2/companies/${companyId}/auths`, { json: { provider: 'chat_d' } })).body
    .auth.id;
  const info = await callbackInfo(gw, v1Channel);
  expect(info).toEqual({
    url: `${gw.baseUrl}/callbacks/chat_a/${v1Channel}`,
    provider: 'chat_a',
    family: 'connector',
    secrets: { signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/), scheme: 'standard-webhooks' },
  });
  v1Secret = info.secrets.signing_secret!;
  v2Secret = (await callbackInfo(gw, v2Channel)).secrets.signing_secret!;
});
afterAll(async () => {
  await gw.close();
  await events.close();
});

const before = () => events.count();
const stored = () => messagingState(gw, companyId);
const messageOf = (externalId: string) => messageWithExternalId(gw, companyId, externalId);
const conversationOf = async (message: { conversation_id: number }) =>
  (await gw.request('GET', `/api/p2/conversations/${message.conversation_id}?company_id=${companyId}`)).body
    .conversation;
const post = (name: string, channel = v1Channel, secret = v1Secret, id?: string) =>
  postConnector(gw, channel === v1Channel ? 'chat_a' : 'chat_d', channel, fixture(name), secret, id);
const postBody = (body: unknown, channel = v1Channel, secret = v1Secret) =>
  postConnector(gw, channel === v1Channel ? 'chat_a' : 'chat_d', channel, JSON.stringify(body), secret);
async function auth(id: number) {
  return (await gw.request('GET', `/api/p2/companies/${companyId}/auths/${id}`)).body.auth;
}

describe('connector protocol: verification', () => {
  it('refuses unsigned, wrongly signed, stale, malformed and invalid events, leaving nothing', async () => {
    const start = await before();
    const state = await stored();
    const body = fixture('connector/message-text');
    const url = `/callbacks/chat_a/${v1Channel}`;
    expectErrorShape(
      await gw.request('POST', url, { token: null, body, headers: { 'content-type': 'application/json' } }),
      401,
      'unauthorized',
    );
    expectErrorShape(
      await gw.request('POST', url, { token: null, body, headers: connectorHeaders(body, v2Secret) }),
      401,
      'unauthorized',
    );
    const stale = connectorHeaders(body, v1Secret, 'msg_stale', new Date(Date.now() - 10 * 60_000));
    expectErrorShape(await gw.request('POST', url, { token: null, body, headers: stale }), 401, 'unauthorized');
    const tampered = connectorHeaders(body, v1Secret);
    expectErrorShape(
      await gw.request('POST', url, { token: null, body: body.replace('Guten Tag', 'Guten Abend'), headers: tampered }),
      401,
      'unauthorized',
    );
    expectErrorShape(await postConnector(gw, 'chat_d', v1Channel, body, v1Secret), 404, 'not_found');
    const malformed = '{"type": "message",';
    expectErrorShape(
      await gw.request('POST', url, { token: null, body: malformed, headers: connectorHeaders(malformed, v1Secret) }),
      400,
      'bad_request',
    );
    for (const invalid of [
      { type: 'selfie' },
      { type: 'status', message_id: 'x', status: 'lost', timestamp: 1 },
      { type: 'message', id: 'x', chat: { id: '1' }, timestamp: 1, extra: true },
    ]) {
      const text = JSON.stringify(invalid);
      expectErrorShape(
        await gw.request('POST', url, { token: null, body: text, headers: connectorHeaders(text, v1Secret) }),
        422,
        'validation_failed',
      );
    }
    expect(await stored()).toEqual(state);
    expect(await events.since(start)).toEqual([]);
  });
});

describe('connector protocol: messages and statuses', () => {
  it('stores a message from a new chat with its events', async () => {
    const start = await before();
    expect((await post('connector/message-text')).status).toBe(200);
    const message = await messageOf('3EB0C431C26A1916E5D7');
    const conversation = await conversationOf(message);
    expect(message).toMatchObject({
      income: true,
      status: 'created',
      message: 'Guten Tag!',
      external_created_at: '2025-06-08T20:59:43.000Z',
    });
    expect(conversation).toMatchObject({
      sender_name: 'Jonas Weber',
      sender_phone: '491701234567',
      sender_external_id: '491701234567',
      sender_external_public_id: '491701234567',
      avatar_url: 'https://media.connector.example/avatars/491701234567.jpg',
      provider: 'chat_a',
      group: false,
    });
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['conversation.create', 'message.create']);
    expect(emitted[0]!.body.object).toEqual(conversation);
    expect(messageOfEvent(emitted[1]!.body.object)).toEqual(message);
  });

  it('describes media by id or URL and keeps the reply reference', async () => {
    expect((await post('connector/message-media')).status).toBe(200);
    const message = await messageOf('3EB0C431C26A1916E5D8');
    expect(message.replied_to_id).toBe('3EB0C431C26A1916E5D7');
    expect(message.attachments).toEqual([
      expect.objectContaining({
        file_name: 'image.jpg',
        mime_type: 'image/jpeg',
        size: 48213,
        aspect_ratio: 1.3333,
        data: { width: 1024, height: 768 },
        push_to_talk: false,
      }),
      expect.objectContaining({
        file_name: 'voice.ogg',
        mime_type: 'audio/ogg',
        size: 9120,
        data: {},
        push_to_talk: true,
      }),
    ]);
  });

  it('threads a group and stores a message sent from the phone as outgoing (replied)', async () => {
    expect((await post('connector/message-group')).status).toBe(200);
    const group = await messageOf('3EB0C431C26A1916E5D9');
    expect(group.details).toEqual({ sender: { id: '491701234567', name: 'Jonas Weber' } });
    // The message is its author's; the conversation's contact is the group, the author a participant.
    expect(await conversationOf(group)).toMatchObject({
      group: true,
      sender_name: 'Lieferanten',
      participants: [expect.objectContaining({ id: group.contact_id, name: 'Jonas Weber' })],
    });
    const start = await before();
    expect((await post('connector/message-from-me')).status).toBe(200);
    const mine = await messageOf('3EB0C431C26A1916E5DA');
    expect(mine).toMatchObject({ income: false, status: 'sent' });
    expect((await events.since(start)).map((e) => e.name)).toEqual(['conversation.update', 'message.create']);
    expect((await conversationOf(mine)).replied_state).toBe('replied');
  });

  it("a group member's message: the author's contact from `sender` (phone, public id, avatar), a participant, and the message event's contact", async () => {
    const start = await before();
    expect((await post('connector/message-group-member')).status).toBe(200);
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual([
      'conversation.create',
      'group_conversation_contact.new',
      'message.create',
    ]);
    const message = emitted[2]!.body.object as { contact_id: number; contact: Record<string, unknown> };
    const contact = {
      id: message.contact_id,
      name: 'Olga Petrova',
      phone: '491709876543',
      avatar_url: 'https://media.connector.example/avatars/491709876543.jpg',
      external_id: '491709876543@c.us',
      external_public_id: '491709876543',
    };
    expect(message).toMatchObject({ contact, conversation: { group: true } });
    const conversation = emitted[0]!.body.object as Record<string, unknown>;
    expect(conversation).toMatchObject({
      sender_name: 'Lieferanten',
      sender_external_id: '120363148147828952@g.us',
      avatar_url: 'https://media.connector.example/avatars/120363148147828952.jpg',
      group: true,
      participants: [contact],
    });
    expect(emitted[1]!.body).toMatchObject({
      type: 'group_conversation_contact',
      event: 'new',
      data: { contact: { external_public_id: '491709876543' }, conversation_id: conversation.id },
    });
  });

  it('applies statuses forward only; failed ends as error with the reason', async () => {
    // Outgoing messages the provider took (sent), as a message sent from the phone brings them.
    const sentFromPhone = async (externalId: string) => {
      const body = { ...JSON.parse(fixture('connector/message-from-me')), id: externalId };
      expect((await postBody(body)).status).toBe(200);
      const message = await messageOf(externalId);
      expect(message).toMatchObject({ income: false, status: 'sent' });
      return message;
    };
    const { id, conversation_id: conversationId } = await sentFromPhone('3EB0OUTGOING0000001');
    let start = await before();
    expect((await post('connector/status-delivered')).status).toBe(200);
    expect((await events.since(start)).map((e) => [e.name, (e.body.object as { status: string }).status])).toEqual([
      ['message.update', 'delivered'],
    ]);
    start = await before();
    expect((await post('connector/status-failed')).status).toBe(200); // after delivery: nothing
    expect(await events.since(start)).toEqual([]);

    const failing = (await sentFromPhone('3EB0OUTGOING0000002')).id;
    start = await before();
    expect(
      (
        await postConnector(
          gw,
          'chat_a',
          v1Channel,
          fixture('connector/status-failed').replace('0000001', '0000002'),
          v1Secret,
        )
      ).status,
    ).toBe(200);
    const message = (
      await gw.request('GET', `/api/p2/conversations/${conversationId}/messages/${failing}?company_id=${companyId}`)
    ).body.message;
    expect(message).toMatchObject({
      status: 'error',
      details: { errors: [{ code: 'recipient_unreachable', title: "The recipient's number is not on the network" }] },
    });
    expect((await events.since(start)).map((e) => e.name)).toEqual(['message.update']);
    expect(
      (await gw.request('GET', `/api/p2/conversations/${conversationId}/messages/${id}?company_id=${companyId}`)).body
        .message.status,
    ).toBe('delivered');
  });
});

describe('connector protocol: connection flow', () => {
  // pact-im/api-doc _includes/v1_webhooks.md ("Whatsapp: new QR-code") and content/en/v2/auths/confirm-auth.md (QR authentication).
  it('qr, code and pages: auth.update carrying them (the QR as a PNG data URL), plus the v1 payload for a v1 channel (the QR as a base64 PNG)', async () => {
    const start = await before();
    expect((await post('connector/qr')).status).toBe(200);
    expect((await post('connector/code')).status).toBe(200);
    expect((await post('connector/pages')).status).toBe(200);
    expect((await post('connector/oauth')).status).toBe(200);
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual([
      'auth.update',
      'channel.qr_code',
      'auth.update',
      'channel.code',
      'auth.update',
      'channel.pages',
      'auth.update',
    ]);
    const current = await auth(v1Channel);
    // The pages are stored by the pages event: the auth objects before it have none.
    expect(current.pages.map((p: { external_id: string; enabled: boolean }) => [p.external_id, p.enabled])).toEqual(
      JSON.parse(fixture('connector/pages')).pages.map((p: { id: string }) => [p.id, false]),
    );
    const payload = JSON.parse(fixture('connector/qr')).qr;
    const v2Qr = (emitted[0]!.body.object as { qr: string }).qr;
    expect(emitted[0]!.body.object).toEqual({
      ...current,
      pages: null,
      qr: expect.stringMatching(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/),
    });
    expect(readQr(v2Qr)).toBe(payload);
    const base = { entity: 'channel', company_id: companyId, channel_id: v1Channel, channel_type: 'chat_a' };
    expect(emitted[1]!.body).toEqual({
      id: emitted[1]!.id,
      created_at: emitted[1]!.created_at,
      type: 'qr_code',
      event: 'new',
      ...base,
      data: v2Qr.slice('data:image/png;base64,'.length),
    });
    expect(readQr(Buffer.from(emitted[1]!.body.data as string, 'base64'))).toBe(payload);
    expect(emitted[2]!.body.object).toEqual({ ...current, pages: null, code: 'K7QX-2M4P' });
    expect(emitted[3]!.body).toMatchObject({ type: 'code', event: 'new', ...base, data: 'K7QX-2M4P' });
    expect(emitted[5]!.body).toMatchObject({
      type: 'pages',
      event: 'new',
      ...base,
      data: JSON.parse(fixture('connector/pages')).pages,
    });
    expect(emitted[6]!.body.object).toEqual({
      ...current,
      oauth_provider_url: JSON.parse(fixture('connector/oauth')).oauth_provider_url,
    });
  });

  // pact-im/api-doc _includes/v1_webhooks.md ("channel connected sucessfuly", "channel disabled").
  it('state moves the channel and writes auth.update (and the v1 system notice: authorized, disabled); a repeat changes nothing', async () => {
    let start = await before();
    expect((await post('connector/state-enabled')).status).toBe(200);
    let current = await auth(v1Channel);
    expect(current.state).toBe('enabled');
    let emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['auth.update', 'channel.state']);
    expect(emitted[0]!.body.object).toEqual(current);
    const notice = emitted[1]!.body as { data: { date: string; date_timestamp: number; timestamp: number } };
    expect(emitted[1]!.body).toEqual({
      id: emitted[1]!.id,
      entity: 'channel',
      type: 'system',
      severity: 'information',
      company_id: companyId,
      channel_id: v1Channel,
      channel_type: 'chat_a',
      created_at: emitted[1]!.created_at,
      data: {
        message: 'authorized',
        date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/),
        date_timestamp: expect.any(Number),
        timestamp: expect.any(Number),
        details: { entity: 'channel', entity_id: v1Channel },
        reason: 'session connected',
      },
    });
    expect(notice.data.date_timestamp).toBe(Math.floor(Date.parse(emitted[1]!.created_at) / 1000));
    expect(notice.data.date).toBe(`${emitted[1]!.created_at.slice(0, 19).replace('T', ' ')} UTC`);

    start = await before();
    expect((await post('connector/state-enabled')).status).toBe(200);
    expect(await events.since(start)).toEqual([]);

    expect((await post('connector/state-disabled')).status).toBe(200);
    current = await auth(v1Channel);
    expect(current.state).toBe('disabled');
    emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['auth.update', 'channel.state']);
    expect(emitted[1]!.body).toMatchObject({
      type: 'system',
      severity: 'critical',
      data: { message: 'disabled', reason: 'logged out on the phone' },
    });
  });

  // pact-im/api-doc _includes/v1_webhooks.md: phone offline, phone online, unavailable, trying_resume_work, synchronized.
  it('session notices become the documented v1 system notices, the channel state unchanged; a v2 channel gets none', async () => {
    const start = await before();
    const notices = [
      ['phone_offline', 'phone offline'],
      ['phone_online', 'phone online'],
      ['unavailable', 'unavailable'],
      ['trying_resume_work', 'trying_resume_work'],
      ['synchronized', 'synchronized'],
    ] as const;
    const stateBefore = (await auth(v1Channel)).state;
    for (const [notice] of notices) {
      expect((await postBody({ ...JSON.parse(fixture('connector/notice')), notice })).status).toBe(200);
    }
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(notices.map(() => 'channel.state'));
    expect(emitted.map((e) => [e.body.type, e.body.severity, (e.body.data as { message: string }).message])).toEqual(
      notices.map(([, text]) => ['system', 'critical', text]),
    );
    expect(emitted[0]!.body.data).toMatchObject({
      date: '2025-06-08 21:00:00 UTC',
      date_timestamp: 1_749_416_400,
      details: { entity: 'channel', entity_id: v1Channel },
    });
    expect((await auth(v1Channel)).state).toBe(stateBefore);
    expect((await postBody({ type: 'notice', notice: 'phone_off' })).status).toBe(422);
    const v2Start = await before();
    expect((await postBody({ type: 'notice', notice: 'phone_offline' }, v2Channel, v2Secret)).status).toBe(200);
    expect(await events.since(v2Start)).toEqual([]);
  });

  it('a v2 channel gets the auth events only', async () => {
    const start = await before();
    expect((await post('connector/qr', v2Channel, v2Secret)).status).toBe(200);
    expect((await post('connector/state-enabled', v2Channel, v2Secret)).status).toBe(200);
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['auth.update', 'auth.update']);
    expect(emitted[1]!.body.object).toEqual(await auth(v2Channel));
  });

  it('a redelivered event (same webhook-id) changes nothing', async () => {
    const start = await before();
    expect((await post('connector/code', v2Channel, v2Secret, 'msg_code_1')).status).toBe(200);
    expect((await post('connector/code', v2Channel, v2Secret, 'msg_code_1')).status).toBe(200);
    expect((await events.since(start)).map((e) => e.name)).toEqual(['auth.update']);
  });

  it('a message event is deduplicated by its message id, under any webhook-id', async () => {
    const start = await before();
    const state = await stored();
    expect((await post('connector/message-text', v2Channel, v2Secret, 'msg_text_1')).status).toBe(200);
    const message = (await stored()).messages.find((m) => !state.messages.some((old) => old.id === m.id));
    const after = await stored();
    // One conversation and one message more, nothing else changed.
    expect(after.conversations).toEqual([...state.conversations, await conversationOf(message)]);
    expect(after.messages).toEqual([...state.messages, message]);
    expect((await post('connector/message-text', v2Channel, v2Secret, 'msg_text_1')).status).toBe(200);
    expect((await post('connector/message-text', v2Channel, v2Secret, 'msg_text_2')).status).toBe(200);
    expect(await stored()).toEqual(after);
    expect((await events.since(start)).map((e) => e.name)).toEqual(['conversation.create', 'message.create']);
  });

  it('is signed as the standardwebhooks package signs', () => {
    // The helper signs with the package itself; verify the pair round-trips as a sanity check.
    const body = fixture('connector/qr');
    const headers = connectorHeaders(body, v1Secret, 'msg_x');
    expect(new Webhook(v1Secret).verify(body, headers)).toEqual(JSON.parse(body));
  });
});
