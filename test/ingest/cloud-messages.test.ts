// Cloud-style callbacks through HTTP alone, what they store: refused ones nothing, accepted ones their
// messages (texts, media described, locations, replies, reactions, several entries in one callback,
// repeats), read back through the v2 API, and what they emit, arriving as webhooks
// (test/helpers/company-events.ts); so this file runs against a cluster too (vitest.cluster.config.ts).
// docs/design.md section 5. The refusals come first: the text they post is stored by the next test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, type TestGateway } from '../helpers/gateway.js';
import { cloudSignature, fixture, messageOfEvent, postCloud } from '../helpers/callbacks.js';
import type { CompanyEvents } from '../helpers/company-events.js';
import { conversationWith, messageWithExternalId, messagingState } from '../helpers/company-messages.js';
import { OUTGOING_ID, startCloudGateway } from './cloud-fixtures.js';

let gw: TestGateway;
let events: CompanyEvents;
let companyId: number;
let channelId: number;
let appSecret: string;
let close: () => Promise<void>;

const TEXT_ID = 'bmid.HBgLMTY1MDU1NTEyMzQVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=';

// No callback secret reaches an answer, an event or the log here either (cloud-secrets.test.ts proves it of its own).
beforeAll(async () => {
  ({ gw, events, companyId, channelId, appSecret, close } = await startCloudGateway({ checkSecretsOnClose: true }));
});
afterAll(() => close?.());

const before = () => events.count();
const conversationOf = (sender: string) => conversationWith(gw, companyId, sender);
const messageOf = (externalId: string) => messageWithExternalId(gw, companyId, externalId);

describe('cloud-style callbacks: refusals leave nothing', () => {
  it('answers 404, 401, 400, 422 and 413 in the error shape, stores nothing and emits nothing', async () => {
    // The same text, posted validly by the next test, is stored then: no refusal claimed its receipt.
    const stored = await messagingState(gw, companyId);
    const start = await before();
    const body = fixture('cloud/text');
    expectErrorShape(await postCloud(gw, 999999, body, appSecret), 404, 'not_found');
    expectErrorShape(
      await gw.request('POST', `/callbacks/chat_b/${channelId}`, { token: null, body }),
      404,
      'not_found',
    );
    expectErrorShape(
      await gw.request('POST', `/callbacks/chat_a_business/abc`, { token: null, body }),
      404,
      'not_found',
    );
    expectErrorShape(
      await postCloud(gw, channelId, body, appSecret, { 'x-hub-signature-256': '' }),
      401,
      'unauthorized',
    );
    expectErrorShape(await postCloud(gw, channelId, body, 'not-the-app-secret'), 401, 'unauthorized');
    expectErrorShape(
      await postCloud(gw, channelId, body, appSecret, { 'x-hub-signature-256': 'sha256=abc' }),
      401,
      'unauthorized',
    );
    // The signature covers the raw bytes: the same JSON re-serialised is another body.
    const reformatted = JSON.stringify(JSON.parse(body));
    expectErrorShape(
      await postCloud(gw, channelId, reformatted, appSecret, {
        'x-hub-signature-256': cloudSignature(body, appSecret),
      }),
      401,
      'unauthorized',
    );
    expectErrorShape(await postCloud(gw, channelId, '{"object": ', appSecret), 400, 'bad_request');
    const schema = await postCloud(
      gw,
      channelId,
      JSON.stringify({
        object: 'x',
        entry: [
          {
            id: '1',
            changes: [
              {
                field: 'messages',
                value: { messages: [{ id: 'm', from: '1', timestamp: 'yesterday', type: 'text' }] },
              },
            ],
          },
        ],
      }),
      appSecret,
    );
    expect(
      expectErrorShape(schema, 422, 'validation_failed')
        .map((e) => e.source?.pointer)
        .sort(),
    ).toEqual(['/entry/0/changes/0/value/messages/0/text', '/entry/0/changes/0/value/messages/0/timestamp']);
    expectErrorShape(await postCloud(gw, channelId, '[1, 2]', appSecret), 422, 'validation_failed');
    const huge = JSON.stringify({ object: 'x', entry: [], pad: 'x'.repeat(1024 * 1024) });
    expectErrorShape(await postCloud(gw, channelId, huge, appSecret), 413, 'payload_too_large');
    expect(await messagingState(gw, companyId)).toEqual(stored);
    expect(await events.since(start)).toEqual([]);
  });
});

describe('cloud-style callbacks: messages', () => {
  it('a text from a new sender opens a conversation and stores the message (created, unreplied)', async () => {
    const start = await before();
    const res = await postCloud(gw, channelId, fixture('cloud/text'), appSecret);
    expect(res.status).toBe(200);
    const message = await messageOf(TEXT_ID);
    expect(message).toMatchObject({
      external_id: TEXT_ID,
      company_id: companyId,
      replied_to_id: null,
      external_created_at: '2025-06-08T20:59:43.000Z',
      income: true,
      status: 'created',
      message: 'Does it come in another color?',
      reactions: [],
      details: null,
      attachments: [],
    });
    const conversation = await conversationOf('16505551234');
    // The contact as the conversation shows it: every field the provider told.
    expect(conversation).toMatchObject({
      sender_name: 'Sheena Nelson',
      sender_phone: '16505551234',
      sender_external_id: '16505551234',
      sender_external_public_id: '16505551234',
      provider: 'chat_a_business',
      operational_state: 'open',
      replied_state: 'unreplied',
      last_message_id: message.id,
      group: false,
    });
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['conversation.create', 'message.create']);
    expect(emitted[0]!.body.object).toEqual(conversation);
    expect(messageOfEvent(emitted[1]!.body.object)).toEqual(message);
    expect(emitted.every((e) => e.company_id === companyId)).toBe(true);
  });

  // The provider's media reference kept for the fetcher is not in the API: written-rows.test.ts reads it.
  it('describes provider media as attachments (not downloaded)', async () => {
    const cases = [
      [
        'cloud/image',
        { file_name: 'image.jpg', mime_type: 'image/jpeg', size: 0, aspect_ratio: null, data: {}, push_to_talk: false },
        'This one, in blue',
      ],
      [
        'cloud/audio-voice',
        { file_name: 'voice.ogg', mime_type: 'audio/ogg', size: 0, aspect_ratio: null, data: {}, push_to_talk: true },
        null,
      ],
      ['cloud/video', { file_name: 'video.mp4', mime_type: 'video/mp4', push_to_talk: false }, 'unboxing'],
      [
        'cloud/document',
        { file_name: 'invoice-2025-06.pdf', mime_type: 'application/pdf', push_to_talk: false },
        'Invoice',
      ],
      ['cloud/sticker', { file_name: 'sticker.webp', mime_type: 'image/webp', push_to_talk: false }, null],
    ] as const;
    for (const [name, attachment, text] of cases) {
      const start = await before();
      const body = fixture(name);
      expect((await postCloud(gw, channelId, body, appSecret)).status, name).toBe(200);
      const externalId = JSON.parse(body).entry[0].changes[0].value.messages[0].id as string;
      const message = await messageOf(externalId);
      expect(message.message, name).toBe(text);
      expect(message.attachments, name).toEqual([
        expect.objectContaining({
          ...attachment,
          message_id: message.id,
          attachment_url: expect.stringMatching(new RegExp(`^${gw.baseUrl}/files/[A-Za-z0-9_-]{43}/`)),
        }),
      ]);
      expect('preview_url' in message.attachments[0], name).toBe(!attachment.mime_type.startsWith('audio/'));
      // Not downloaded yet: the address answers 404 until the media fetcher stores the bytes.
      expect(
        (await gw.request('GET', new URL(message.attachments[0].attachment_url).pathname, { token: null })).status,
      ).toBe(404);
      const emitted = await events.since(start);
      expect(
        emitted.map((e) => e.name),
        name,
      ).toEqual(['message.create']);
      expect(messageOfEvent(emitted[0]!.body.object)).toEqual(message);
    }
  });

  it('keeps a location in details, a button reply as text with its reply reference', async () => {
    expect((await postCloud(gw, channelId, fixture('cloud/location'), appSecret)).status).toBe(200);
    const location = await messageOf('bmid.HBgLMTY1MDU1NTEyMzQVAgASGBQzQUJDMDAwMDAwMDAwMDAwMDAwNgA=');
    expect(location).toMatchObject({
      message: null,
      details: {
        location: {
          address: '1 Hacker Way, Menlo Park, CA 94025',
          latitude: 37.483307,
          longitude: -122.148981,
          name: 'Head office',
        },
      },
    });
    expect((await postCloud(gw, channelId, fixture('cloud/interactive-button-reply'), appSecret)).status).toBe(200);
    const reply = await messageOf('bmid.HBgLMTY1MDU1NTEyMzQVAgASGBQzQUJDMDAwMDAwMDAwMDAwMDAwOAA=');
    expect(reply).toMatchObject({
      message: 'Change',
      replied_to_id: OUTGOING_ID,
      details: { interactive: { type: 'button_reply', id: 'change-button', title: 'Change' } },
    });
    expect((await postCloud(gw, channelId, fixture('cloud/text-reply'), appSecret)).status).toBe(200);
    expect(await messageOf('bmid.HBgLMTY1MDU1NTEyMzQVAgASGBQzQUJDMDAwMDAwMDAwMDAwMDAwOQA=')).toMatchObject({
      message: 'Yes, please ship it',
      replied_to_id: OUTGOING_ID,
    });
  });

  it('puts a reaction onto the message it reacts to (message.update), once', async () => {
    const start = await before();
    const stored = await messagingState(gw, companyId);
    expect((await postCloud(gw, channelId, fixture('cloud/reaction'), appSecret)).status).toBe(200);
    expect((await postCloud(gw, channelId, fixture('cloud/reaction'), appSecret)).status).toBe(200);
    const target = await messageOf(TEXT_ID);
    expect((await messagingState(gw, companyId)).messages).toEqual(
      stored.messages.map((message) => (message.id === target.id ? target : message)),
    );
    expect(target.reactions).toEqual([{ emoji: '👍', from: '16505551234', created_at: '2025-06-08T21:01:00.000Z' }]);
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['message.update']);
    expect(messageOfEvent(emitted[0]!.body.object)).toEqual(target);
  });

  it('counts every entry and change of one callback', async () => {
    const start = await before();
    expect((await postCloud(gw, channelId, fixture('cloud/multiple-entries'), appSecret)).status).toBe(200);
    expect((await events.since(start)).map((e) => e.name)).toEqual([
      'conversation.create',
      'message.create',
      'message.create',
      'conversation.create',
      'message.create',
    ]);
    expect((await conversationOf('5511987654321')).sender_name).toBe('Ana Lima');
    expect((await conversationOf('819012345678')).sender_name).toBe('Ken Sato');
    for (const id of ['bmid.MULTI0001', 'bmid.MULTI0002', 'bmid.MULTI0003'])
      expect((await messageOf(id)).status).toBe('created');
  });

  it('reopens an archived conversation and marks it unreplied (conversation.update)', async () => {
    const conversation = await conversationOf('16505551234');
    await gw.request('PUT', `/api/p2/conversations/${conversation.id}`, {
      json: { company_id: companyId, operational_state: 'archived', replied_state: 'replied' },
    });
    const start = await before();
    const body = fixture('cloud/text')
      .replace(TEXT_ID, 'bmid.REOPEN0001')
      .replace('Does it come in another color?', 'Hello again');
    expect((await postCloud(gw, channelId, body, appSecret)).status).toBe(200);
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['conversation.update', 'message.create']);
    const now = await conversationOf('16505551234');
    expect(now).toMatchObject({
      operational_state: 'open',
      replied_state: 'unreplied',
      last_message_id: (await messageOf('bmid.REOPEN0001')).id,
    });
    expect(emitted[0]!.body.object).toEqual(now);
  });

  it('stores one message and one event for the same callback fired concurrently', async () => {
    const start = await before();
    const body = fixture('cloud/text').replace(TEXT_ID, 'bmid.CONCURRENT0001');
    const answers = await Promise.all(Array.from({ length: 25 }, () => postCloud(gw, channelId, body, appSecret)));
    expect(answers.map((a) => a.status)).toEqual(Array(25).fill(200));
    expect(
      (await messagingState(gw, companyId)).messages.filter((m) => m.external_id === 'bmid.CONCURRENT0001'),
    ).toHaveLength(1);
    expect((await events.since(start)).map((e) => e.name)).toEqual(['message.create']);
  });
});
