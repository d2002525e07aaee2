// Bot-style callbacks through HTTP alone: what each stores is read back through the v2 API and what
// it emits arrives as webhooks (test/helpers/company-events.ts), so this file runs against a cluster
// too (vitest.cluster.config.ts). Which callbacks claim a receipt, and the provider's media
// reference, no API shows: written-rows.test.ts reads them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { callbackInfo, fixture, messageOfEvent, postBot } from '../helpers/callbacks.js';
import { observeCompanyEvents, type CompanyEvents } from '../helpers/company-events.js';
import { messageWithExternalId, messagingState } from '../helpers/company-messages.js';

let gw: TestGateway;
let events: CompanyEvents;
let companyId: number;
let channelId: number;
let secretToken: string;

beforeAll(async () => {
  gw = await startTestGateway(TO_RECEIVERS);
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Bot Co' } })).body.data.external_id;
  events = await observeCompanyEvents(gw, companyId);
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
afterAll(async () => {
  await gw.close();
  await events.close();
});

const before = () => events.count();
const messageOf = (externalId: string) => messageWithExternalId(gw, companyId, externalId);
const stored = () => messagingState(gw, companyId);

describe('bot-style callbacks', () => {
  it('refuses a missing or wrong secret token, malformed JSON and schema violations, leaving nothing', async () => {
    const start = await before();
    const state = await stored();
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
    expect(await stored()).toEqual(state);
    expect(await events.since(start)).toEqual([]);
  });

  it('stores a text from a new chat: contact, conversation, message and their events', async () => {
    const start = await before();
    const state = await stored();
    expect((await postBot(gw, channelId, fixture('bot/text'), secretToken)).status).toBe(200);
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
    // One conversation and one message more, nothing else changed.
    expect(await stored()).toEqual({
      conversations: [...state.conversations, conversation],
      messages: [...state.messages, message],
    });
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['conversation.create', 'message.create']);
    expect(emitted[0]!.body.object).toEqual(conversation);
    expect(messageOfEvent(emitted[1]!.body.object)).toEqual(message);
  });

  it('treats a repeated update_id as a duplicate', async () => {
    const start = await before();
    const state = await stored();
    expect((await postBot(gw, channelId, fixture('bot/text'), secretToken)).status).toBe(200);
    expect(await stored()).toEqual(state);
    expect(await events.since(start)).toEqual([]);
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
      const start = await before();
      expect((await postBot(gw, channelId, fixture(name), secretToken)).status).toBe(200);
      const message = await messageOf(id);
      expect(message.message).toBe(text);
      expect(message.attachments).toEqual([expect.objectContaining(expected)]);
      const emitted = await events.since(start);
      expect(emitted.map((e) => e.name)).toEqual(['message.create']);
      expect(messageOfEvent(emitted[0]!.body.object)).toEqual(message);
    }
  });

  it('keeps the reply reference in replied_to_id', async () => {
    expect((await postBot(gw, channelId, fixture('bot/reply'), secretToken)).status).toBe(200);
    expect(await messageOf('734891122:1205')).toMatchObject({ message: 'This one', replied_to_id: '734891122:1201' });
  });

  it('applies an edited message to the stored one (message.update), once per update_id', async () => {
    const start = await before();
    const state = await stored();
    expect((await postBot(gw, channelId, fixture('bot/edited-message'), secretToken)).status).toBe(200);
    const message = await messageOf('734891122:1201');
    expect(message).toMatchObject({
      message: 'Hello, is order 4411 ready?',
      details: { edited_at: '2025-06-08T21:01:40.000Z' },
    });
    expect((await events.since(start)).map((e) => e.name)).toEqual(['message.update']);
    expect(messageOfEvent((await events.since(start))[0]!.body.object)).toEqual(message);
    // The edited message changed, nothing else.
    const after = { ...state, messages: state.messages.map((m) => (m.id === message.id ? message : m)) };
    expect(await stored()).toEqual(after);
    // An edit deduplicates by its update_id (a receipt): the same update again changes nothing.
    expect((await postBot(gw, channelId, fixture('bot/edited-message'), secretToken)).status).toBe(200);
    expect(await stored()).toEqual(after);
    expect(await events.since(start)).toHaveLength(1);
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
  });

  it('stores one message for the same update fired concurrently', async () => {
    const start = await before();
    const body = fixture('bot/text')
      .replace('815207301', '815207399')
      .replace('"message_id": 1201', '"message_id": 1299');
    const answers = await Promise.all(Array.from({ length: 20 }, () => postBot(gw, channelId, body, secretToken)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect((await stored()).messages.filter((m) => m.external_id === '734891122:1299')).toHaveLength(1);
    expect((await events.since(start)).map((e) => e.name)).toEqual(['message.create']);
  });

  it('answers 404 for a deleted channel', async () => {
    await gw.request('DELETE', `/p1/companies/${companyId}/channels/${channelId}`);
    expectErrorShape(await postBot(gw, channelId, fixture('bot/text'), secretToken), 404, 'not_found');
  });
});
