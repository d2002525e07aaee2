import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emittedEvents } from '../helpers/events.js';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { callbackInfo, checkedEvents, fixture, messageOfEvent, postBot, rowCounts } from '../helpers/callbacks.js';

let gw: TestGateway;
let companyId: number;
let channelId: number;
let secretToken: string;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Bot Co' } })).body.data.external_id;
  channelId = (
    await gw.request('POST', `/p1/companies/${companyId}/channels`, {
      json: { provider: 'chat_b', token: '123456:bot-token' },
    })
  ).body.data.external_id;
  const info = await callbackInfo(gw, channelId);
  expect(info).toEqual({
    url: `${gw.baseUrl}/callbacks/chat_b/${channelId}`,
    provider: 'chat_b',
    family: 'bot',
    secrets: { secret_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), header: 'x-bot-api-secret-token' },
  });
  secretToken = info.secrets.secret_token!;
});
afterAll(() => gw.close());

const store = () => gw.gateway.store;
const before = () => emittedEvents(store()).length;
async function messageOf(externalId: string) {
  const row = store().db.prepare('SELECT id, conversation_id FROM messages WHERE external_id = ?').get(externalId) as {
    id: number;
    conversation_id: number;
  };
  return (
    await gw.request('GET', `/api/p2/conversations/${row.conversation_id}/messages/${row.id}?company_id=${companyId}`)
  ).body.message;
}

describe('bot-style callbacks', () => {
  it('refuses a missing or wrong secret token, malformed JSON and schema violations, leaving nothing', async () => {
    const counts = rowCounts(store());
    expectErrorShape(await postBot(gw, channelId, fixture('bot/text'), null), 401, 'unauthorized');
    expectErrorShape(await postBot(gw, channelId, fixture('bot/text'), `${secretToken}x`), 401, 'unauthorized');
    expectErrorShape(await postBot(gw, channelId, '{"update_id": 1,', secretToken), 400, 'bad_request');
    const bad = await postBot(
      gw,
      channelId,
      JSON.stringify({ update_id: 'one', message: { message_id: 1, chat: { id: 1, type: 'private' } } }),
      secretToken,
    );
    expect(
      expectErrorShape(bad, 422, 'validation_failed')
        .map((e) => e.source?.pointer)
        .sort(),
    ).toEqual(['/message/date', '/update_id']);
    expect(rowCounts(store())).toEqual(counts);
  });

  it('stores a text from a new chat: contact, conversation, message and their events', async () => {
    const start = before();
    const counts = rowCounts(store());
    expect((await postBot(gw, channelId, fixture('bot/text'), secretToken)).status).toBe(200);
    // The message's id deduplicates the update: no receipt for it.
    expect(rowCounts(store())).toEqual({
      ...counts,
      contacts: counts.contacts + 1,
      conversations: counts.conversations + 1,
      messages: counts.messages + 1,
      events: counts.events + 2,
    });
    const message = await messageOf('734891122:1201');
    expect(message).toMatchObject({
      external_id: '734891122:1201',
      income: true,
      status: 'created',
      message: 'Hello, is the order ready?',
      external_created_at: '2025-06-08T20:59:43.000Z',
      replied_to_id: null,
      attachments: [],
    });
    const conversation = (
      await gw.request('GET', `/api/p2/conversations/${message.conversation_id}?company_id=${companyId}`)
    ).body.conversation;
    expect(conversation).toMatchObject({
      sender_name: 'Olga Petrova',
      sender_phone: null,
      sender_external_id: '734891122',
      sender_external_public_id: '@olga_p',
      provider: 'chat_b',
      replied_state: 'unreplied',
      group: false,
    });
    const events = checkedEvents(store(), start);
    expect(events.map((e) => e.name)).toEqual(['conversation.create', 'message.create']);
    expect(events[0]!.body.object).toEqual(conversation);
    expect(messageOfEvent(events[1]!.body.object)).toEqual(message);
  });

  it('treats a repeated update_id as a duplicate', async () => {
    const start = before();
    const counts = rowCounts(store());
    expect((await postBot(gw, channelId, fixture('bot/text'), secretToken)).status).toBe(200);
    expect(rowCounts(store())).toEqual(counts);
    expect(checkedEvents(store(), start)).toEqual([]);
  });

  it('describes photo (largest size), voice and document as attachments', async () => {
    for (const [name, id, expected, text] of [
      [
        'bot/photo',
        '734891122:1202',
        {
          file_name: 'photo.jpg',
          mime_type: 'image/jpeg',
          size: 86034,
          aspect_ratio: 1.3333,
          data: { width: 1280, height: 960 },
          push_to_talk: false,
        },
        'The scratch',
      ],
      [
        'bot/voice',
        '734891122:1203',
        {
          file_name: 'voice.ogg',
          mime_type: 'audio/ogg',
          size: 11408,
          aspect_ratio: null,
          data: {},
          push_to_talk: true,
        },
        null,
      ],
      [
        'bot/document',
        '734891122:1204',
        { file_name: 'contract.pdf', mime_type: 'application/pdf', size: 245113, push_to_talk: false },
        null,
      ],
    ] as const) {
      const start = before();
      expect((await postBot(gw, channelId, fixture(name), secretToken)).status).toBe(200);
      const message = await messageOf(id);
      expect(message.message).toBe(text);
      expect(message.attachments).toEqual([expect.objectContaining(expected)]);
      const events = checkedEvents(store(), start);
      expect(events.map((e) => e.name)).toEqual(['message.create']);
      expect(messageOfEvent(events[0]!.body.object)).toEqual(message);
    }
    const photo = store().db.prepare("SELECT provider_media FROM attachments WHERE file_name = 'photo.jpg'").get() as {
      provider_media: string;
    };
    expect(JSON.parse(photo.provider_media)).toEqual({
      kind: 'image',
      id: 'AgACAgIAAxkBAAIEsmZ_large',
      unique_id: 'AQADs3',
    });
  });

  it('keeps the reply reference in replied_to_id', async () => {
    expect((await postBot(gw, channelId, fixture('bot/reply'), secretToken)).status).toBe(200);
    expect(await messageOf('734891122:1205')).toMatchObject({ message: 'This one', replied_to_id: '734891122:1201' });
  });

  it('applies an edited message to the stored one (message.update), once per update_id', async () => {
    const start = before();
    const counts = rowCounts(store());
    expect((await postBot(gw, channelId, fixture('bot/edited-message'), secretToken)).status).toBe(200);
    const message = await messageOf('734891122:1201');
    expect(message).toMatchObject({
      message: 'Hello, is order 4411 ready?',
      details: { edited_at: '2025-06-08T21:01:40.000Z' },
    });
    const events = checkedEvents(store(), start);
    expect(events.map((e) => e.name)).toEqual(['message.update']);
    expect(messageOfEvent(events[0]!.body.object)).toEqual(message);
    // An edit deduplicates by its update_id (a receipt): the same update again changes nothing.
    const after = { ...counts, events: counts.events + 1, callback_receipts: counts.callback_receipts + 1 };
    expect(rowCounts(store())).toEqual(after);
    expect((await postBot(gw, channelId, fixture('bot/edited-message'), secretToken)).status).toBe(200);
    expect(rowCounts(store())).toEqual(after);
    expect(checkedEvents(store(), start)).toHaveLength(1);
  });

  it("threads a group chat as one conversation marked group, its author the message's contact and a participant", async () => {
    expect((await postBot(gw, channelId, fixture('bot/group-text'), secretToken)).status).toBe(200);
    const message = await messageOf('-1001987654321:88');
    expect(message.details).toEqual({ sender: { id: '734891122', name: 'Olga Petrova' } });
    const conversation = (
      await gw.request('GET', `/api/p2/conversations/${message.conversation_id}?company_id=${companyId}`)
    ).body.conversation;
    expect(conversation).toMatchObject({
      sender_name: 'Acme support',
      sender_external_id: '-1001987654321',
      group: true,
      participants: [
        {
          id: message.contact_id,
          name: 'Olga Petrova',
          phone: null,
          avatar_url: '',
          external_id: '734891122',
          external_public_id: '@olga_p',
        },
      ],
    });
    expect(message.contact_id).not.toBe(store().conversations.find(companyId, message.conversation_id)!.contact_id);
  });

  it('stores one message for the same update fired concurrently', async () => {
    const start = before();
    const body = fixture('bot/text')
      .replace('815207301', '815207399')
      .replace('"message_id": 1201', '"message_id": 1299');
    const answers = await Promise.all(Array.from({ length: 20 }, () => postBot(gw, channelId, body, secretToken)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(store().db.prepare("SELECT count(*) AS n FROM messages WHERE external_id = '734891122:1299'").get()).toEqual(
      { n: 1 },
    );
    expect(checkedEvents(store(), start).map((e) => e.name)).toEqual(['message.create']);
  });

  it('answers 404 for a deleted channel', async () => {
    await gw.request('DELETE', `/p1/companies/${companyId}/channels/${channelId}`);
    expectErrorShape(await postBot(gw, channelId, fixture('bot/text'), secretToken), 404, 'not_found');
  });
});
