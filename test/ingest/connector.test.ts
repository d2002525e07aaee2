import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emittedEvents } from '../helpers/events.js';
import { readQr } from '../helpers/qr.js';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import {
  callbackInfo,
  checkedEvents,
  connectorHeaders,
  fixture,
  messageOfEvent,
  postConnector,
  rowCounts,
  seedOutgoing,
} from '../helpers/callbacks.js';

let gw: TestGateway;
let companyId: number;
/** chat_a created through v1: also gets the v1 channel payloads. */
let v1Channel: number;
let v1Secret: string;
/** chat_d created through v2: auth events only. */
let v2Channel: number;
let v2Secret: string;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Connector Co' } })).body.data.external_id;
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
afterAll(() => gw.close());

const store = () => gw.gateway.store;
const before = () => emittedEvents(store()).length;
const post = (name: string, channel = v1Channel, secret = v1Secret, id?: string) =>
  postConnector(gw, channel === v1Channel ? 'chat_a' : 'chat_d', channel, fixture(name), secret, id);
const postBody = (body: unknown, channel = v1Channel, secret = v1Secret) =>
  postConnector(gw, channel === v1Channel ? 'chat_a' : 'chat_d', channel, JSON.stringify(body), secret);
async function auth(id: number) {
  return (await gw.request('GET', `/api/p2/companies/${companyId}/auths/${id}`)).body.auth;
}

describe('connector protocol: verification', () => {
  it('refuses unsigned, wrongly signed, stale, malformed and invalid events, leaving nothing', async () => {
    const counts = rowCounts(store());
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
    expect(rowCounts(store())).toEqual(counts);
  });
});

describe('connector protocol: messages and statuses', () => {
  it('stores a message from a new chat with its events', async () => {
    const start = before();
    expect((await post('connector/message-text')).status).toBe(200);
    const row = store()
      .db.prepare("SELECT id, conversation_id FROM messages WHERE external_id = '3EB0C431C26A1916E5D7'")
      .get() as { id: number; conversation_id: number };
    const message = (
      await gw.request('GET', `/api/p2/conversations/${row.conversation_id}/messages/${row.id}?company_id=${companyId}`)
    ).body.message;
    const conversation = (
      await gw.request('GET', `/api/p2/conversations/${row.conversation_id}?company_id=${companyId}`)
    ).body.conversation;
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
    const events = checkedEvents(store(), start);
    expect(events.map((e) => e.name)).toEqual(['conversation.create', 'message.create']);
    expect(events[0]!.body.object).toEqual(conversation);
    expect(messageOfEvent(events[1]!.body.object)).toEqual(message);
  });

  it('describes media by id or URL and keeps the reply reference', async () => {
    expect((await post('connector/message-media')).status).toBe(200);
    const row = store()
      .db.prepare("SELECT id, conversation_id FROM messages WHERE external_id = '3EB0C431C26A1916E5D8'")
      .get() as { id: number; conversation_id: number };
    const message = (
      await gw.request('GET', `/api/p2/conversations/${row.conversation_id}/messages/${row.id}?company_id=${companyId}`)
    ).body.message;
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
    const media = store()
      .db.prepare('SELECT provider_media FROM attachments WHERE message_id = ? ORDER BY id')
      .all(row.id) as { provider_media: string }[];
    expect(media.map((m) => JSON.parse(m.provider_media))).toEqual([
      { kind: 'image', id: 'media-7f3a' },
      { kind: 'voice', url: 'https://media.connector.example/m/9c1d.ogg' },
    ]);
  });

  it('threads a group and stores a message sent from the phone as outgoing (replied)', async () => {
    expect((await post('connector/message-group')).status).toBe(200);
    const group = store()
      .db.prepare("SELECT details, contact_id FROM messages WHERE external_id = '3EB0C431C26A1916E5D9'")
      .get() as { details: string; contact_id: number };
    expect(JSON.parse(group.details)).toEqual({ sender: { id: '491701234567', name: 'Jonas Weber' } });
    // The message is its author's; the conversation's contact is the group, the author a participant.
    expect(store().db.prepare('SELECT is_group, name FROM contacts WHERE id = ?').get(group.contact_id)).toEqual({
      is_group: 0,
      name: 'Jonas Weber',
    });
    expect(
      store()
        .db.prepare(
          `SELECT contacts.is_group, contacts.name, conversation_participants.contact_id AS participant
           FROM messages JOIN conversations ON conversations.id = messages.conversation_id
           JOIN contacts ON contacts.id = conversations.contact_id
           JOIN conversation_participants ON conversation_participants.conversation_id = conversations.id
           WHERE messages.external_id = '3EB0C431C26A1916E5D9'`,
        )
        .all(),
    ).toEqual([{ is_group: 1, name: 'Lieferanten', participant: group.contact_id }]);
    const start = before();
    expect((await post('connector/message-from-me')).status).toBe(200);
    const mine = store()
      .db.prepare("SELECT income, status, conversation_id FROM messages WHERE external_id = '3EB0C431C26A1916E5DA'")
      .get() as { income: number; status: string; conversation_id: number };
    expect(mine).toMatchObject({ income: 0, status: 'sent' });
    expect(checkedEvents(store(), start).map((e) => e.name)).toEqual(['conversation.update', 'message.create']);
    expect(
      store().db.prepare('SELECT replied_state FROM conversations WHERE id = ?').get(mine.conversation_id),
    ).toEqual({ replied_state: 'replied' });
  });

  it("a group member's message: the author's contact from `sender` (phone, public id, avatar), a participant, and the message event's contact", async () => {
    const start = before();
    expect((await post('connector/message-group-member')).status).toBe(200);
    const author = store().db.prepare("SELECT * FROM contacts WHERE external_id = '491709876543@c.us'").get() as Record<
      string,
      unknown
    >;
    expect(author).toMatchObject({
      name: 'Olga Petrova',
      phone: '491709876543',
      external_public_id: '491709876543',
      avatar_url: 'https://media.connector.example/avatars/491709876543.jpg',
      is_group: 0,
    });
    const contact = {
      id: author.id,
      name: 'Olga Petrova',
      phone: '491709876543',
      avatar_url: 'https://media.connector.example/avatars/491709876543.jpg',
      external_id: '491709876543@c.us',
      external_public_id: '491709876543',
    };
    const events = checkedEvents(store(), start);
    expect(events.map((e) => e.name)).toEqual([
      'conversation.create',
      'group_conversation_contact.new',
      'message.create',
    ]);
    const conversation = events[0]!.body.object as Record<string, unknown>;
    expect(conversation).toMatchObject({
      sender_name: 'Lieferanten',
      sender_external_id: '120363148147828952@g.us',
      avatar_url: 'https://media.connector.example/avatars/120363148147828952.jpg',
      group: true,
      participants: [contact],
    });
    expect(events[1]!.body).toMatchObject({
      type: 'group_conversation_contact',
      event: 'new',
      data: { contact: { external_public_id: '491709876543' }, conversation_id: conversation.id },
    });
    expect(events[2]!.body.object).toMatchObject({ contact_id: author.id, contact, conversation: { group: true } });
  });

  it('applies statuses forward only; failed ends as error with the reason', async () => {
    const conversationId = (
      store().db.prepare("SELECT conversation_id FROM messages WHERE external_id = '3EB0C431C26A1916E5D7'").get() as {
        conversation_id: number;
      }
    ).conversation_id;
    const id = seedOutgoing(store(), conversationId, companyId, '3EB0OUTGOING0000001', 'sent');
    let start = before();
    expect((await post('connector/status-delivered')).status).toBe(200);
    expect(checkedEvents(store(), start).map((e) => [e.name, (e.body.object as { status: string }).status])).toEqual([
      ['message.update', 'delivered'],
    ]);
    start = before();
    expect((await post('connector/status-failed')).status).toBe(200); // after delivery: nothing
    expect(checkedEvents(store(), start)).toEqual([]);

    const failing = seedOutgoing(store(), conversationId, companyId, '3EB0OUTGOING0000002', 'sent');
    start = before();
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
    expect(checkedEvents(store(), start).map((e) => e.name)).toEqual(['message.update']);
    expect(store().messages.find(conversationId, id)!.status).toBe('delivered');
  });
});

describe('connector protocol: connection flow', () => {
  // pact-im/api-doc _includes/v1_webhooks.md ("Whatsapp: new QR-code") and content/en/v2/auths/confirm-auth.md (QR authentication).
  it('qr, code and pages: auth.update carrying them (the QR as a PNG data URL), plus the v1 payload for a v1 channel (the QR as a base64 PNG)', async () => {
    const start = before();
    expect((await post('connector/qr')).status).toBe(200);
    expect((await post('connector/code')).status).toBe(200);
    expect((await post('connector/pages')).status).toBe(200);
    expect((await post('connector/oauth')).status).toBe(200);
    const events = checkedEvents(store(), start);
    expect(events.map((e) => e.name)).toEqual([
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
    const v2Qr = (events[0]!.body.object as { qr: string }).qr;
    expect(events[0]!.body.object).toEqual({
      ...current,
      pages: null,
      qr: expect.stringMatching(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/),
    });
    expect(readQr(v2Qr)).toBe(payload);
    const base = { entity: 'channel', company_id: companyId, channel_id: v1Channel, channel_type: 'chat_a' };
    expect(events[1]!.body).toEqual({
      id: events[1]!.id,
      created_at: events[1]!.created_at,
      type: 'qr_code',
      event: 'new',
      ...base,
      data: v2Qr.slice('data:image/png;base64,'.length),
    });
    expect(readQr(Buffer.from(events[1]!.body.data as string, 'base64'))).toBe(payload);
    expect(events[2]!.body.object).toEqual({ ...current, pages: null, code: 'K7QX-2M4P' });
    expect(events[3]!.body).toMatchObject({ type: 'code', event: 'new', ...base, data: 'K7QX-2M4P' });
    expect(events[5]!.body).toMatchObject({
      type: 'pages',
      event: 'new',
      ...base,
      data: JSON.parse(fixture('connector/pages')).pages,
    });
    expect(events[6]!.body.object).toEqual({
      ...current,
      oauth_provider_url: JSON.parse(fixture('connector/oauth')).oauth_provider_url,
    });
  });

  // pact-im/api-doc _includes/v1_webhooks.md ("channel connected sucessfuly", "channel disabled").
  it('state moves the channel and writes auth.update (and the v1 system notice: authorized, disabled); a repeat changes nothing', async () => {
    let start = before();
    expect((await post('connector/state-enabled')).status).toBe(200);
    let current = await auth(v1Channel);
    expect(current.state).toBe('enabled');
    let events = checkedEvents(store(), start);
    expect(events.map((e) => e.name)).toEqual(['auth.update', 'channel.state']);
    expect(events[0]!.body.object).toEqual(current);
    const notice = events[1]!.body as { data: { date: string; date_timestamp: number; timestamp: number } };
    expect(events[1]!.body).toEqual({
      id: events[1]!.id,
      entity: 'channel',
      type: 'system',
      severity: 'information',
      company_id: companyId,
      channel_id: v1Channel,
      channel_type: 'chat_a',
      created_at: events[1]!.created_at,
      data: {
        message: 'authorized',
        date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/),
        date_timestamp: expect.any(Number),
        timestamp: expect.any(Number),
        details: { entity: 'channel', entity_id: v1Channel },
        reason: 'session connected',
      },
    });
    expect(notice.data.date_timestamp).toBe(Math.floor(Date.parse(events[1]!.created_at) / 1000));
    expect(notice.data.date).toBe(`${events[1]!.created_at.slice(0, 19).replace('T', ' ')} UTC`);

    start = before();
    expect((await post('connector/state-enabled')).status).toBe(200);
    expect(checkedEvents(store(), start)).toEqual([]);

    expect((await post('connector/state-disabled')).status).toBe(200);
    current = await auth(v1Channel);
    expect(current.state).toBe('disabled');
    events = checkedEvents(store(), start);
    expect(events.map((e) => e.name)).toEqual(['auth.update', 'channel.state']);
    expect(events[1]!.body).toMatchObject({
      type: 'system',
      severity: 'critical',
      data: { message: 'disabled', reason: 'logged out on the phone' },
    });
  });

  // pact-im/api-doc _includes/v1_webhooks.md: phone offline, phone online, unavailable, trying_resume_work, synchronized.
  it('session notices become the documented v1 system notices, the channel state unchanged; a v2 channel gets none', async () => {
    const start = before();
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
    const events = checkedEvents(store(), start);
    expect(events.map((e) => e.name)).toEqual(notices.map(() => 'channel.state'));
    expect(events.map((e) => [e.body.type, e.body.severity, (e.body.data as { message: string }).message])).toEqual(
      notices.map(([, text]) => ['system', 'critical', text]),
    );
    expect(events[0]!.body.data).toMatchObject({
      date: '2025-06-08 21:00:00 UTC',
      date_timestamp: 1_749_416_400,
      details: { entity: 'channel', entity_id: v1Channel },
    });
    expect((await auth(v1Channel)).state).toBe(stateBefore);
    expect((await postBody({ type: 'notice', notice: 'phone_off' })).status).toBe(422);
    const v2Start = before();
    expect((await postBody({ type: 'notice', notice: 'phone_offline' }, v2Channel, v2Secret)).status).toBe(200);
    expect(checkedEvents(store(), v2Start)).toEqual([]);
  });

  it('a v2 channel gets the auth events only', async () => {
    const start = before();
    expect((await post('connector/qr', v2Channel, v2Secret)).status).toBe(200);
    expect((await post('connector/state-enabled', v2Channel, v2Secret)).status).toBe(200);
    const events = checkedEvents(store(), start);
    expect(events.map((e) => e.name)).toEqual(['auth.update', 'auth.update']);
    expect(events[1]!.body.object).toEqual(await auth(v2Channel));
  });

  it('a redelivered event (same webhook-id) changes nothing', async () => {
    const start = before();
    expect((await post('connector/code', v2Channel, v2Secret, 'msg_code_1')).status).toBe(200);
    expect((await post('connector/code', v2Channel, v2Secret, 'msg_code_1')).status).toBe(200);
    expect(checkedEvents(store(), start).map((e) => e.name)).toEqual(['auth.update']);
  });

  it('a message event claims no receipt: its message id deduplicates it, under any webhook-id', async () => {
    const start = before();
    const counts = rowCounts(store());
    expect((await post('connector/message-text', v2Channel, v2Secret, 'msg_text_1')).status).toBe(200);
    const stored = rowCounts(store());
    expect(stored).toEqual({
      ...counts,
      contacts: counts.contacts + 1,
      conversations: counts.conversations + 1,
      messages: counts.messages + 1,
      events: counts.events + 2,
    });
    expect((await post('connector/message-text', v2Channel, v2Secret, 'msg_text_1')).status).toBe(200);
    expect((await post('connector/message-text', v2Channel, v2Secret, 'msg_text_2')).status).toBe(200);
    expect(rowCounts(store())).toEqual(stored);
    expect(checkedEvents(store(), start).map((e) => e.name)).toEqual(['conversation.create', 'message.create']);
  });

  it('is signed as the standardwebhooks package signs', () => {
    // The helper signs with the package itself; verify the pair round-trips as a sanity check.
    const body = fixture('connector/qr');
    const headers = connectorHeaders(body, v1Secret, 'msg_x');
    expect(new Webhook(v1Secret).verify(body, headers)).toEqual(JSON.parse(body));
  });
});
