// Cloud-style callbacks through HTTP alone: what each stores is read back through the v2 API and
// what it emits arrives as webhooks (test/helpers/company-events.ts), so this file runs against a
// cluster too (vitest.cluster.config.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { callbackInfo, cloudSignature, fixture, messageOfEvent, postCloud } from '../helpers/callbacks.js';
import { observeCompanyEvents, type CompanyEvents } from '../helpers/company-events.js';
import { conversationWith, messageWithExternalId, messagingState } from '../helpers/company-messages.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { eventually } from '../helpers/wait.js';

let gw: TestGateway;
let provider: FakeProvider;
let events: CompanyEvents;
let companyId: number;
let channelId: number;
let appSecret: string;
let verifyToken: string;

const TEXT_ID = 'bmid.HBgLMTY1MDU1NTEyMzQVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=';
const OUTGOING_ID = 'bmid.OUTGOING00000000000000000000000001';
/** The phone-number id the recorded payloads are about. */
const PHONE_NUMBER_ID = '106540352242922';

beforeAll(async () => {
  provider = await new FakeProvider().start();
  gw = await startTestGateway({ ...TO_RECEIVERS, ...provider.env() });
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Cloud Co' } })).body.data.external_id;
  // Subscribed before the channel exists: its auth.create is among the events the secrets never reach.
  events = await observeCompanyEvents(gw, companyId);
  channelId = (
    await gw.request('POST', `/p1/companies/${companyId}/channels`, {
      json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 'EAAG-cloud-token' },
    })
  ).body.data.external_id;
  const info = await callbackInfo(gw, channelId);
  appSecret = info.secrets.app_secret!;
  verifyToken = info.secrets.verify_token!;
});
afterAll(async () => {
  await gw.close();
  await events.close();
  await provider.close();
});

const before = () => events.count();
const conversationOf = (sender: string) => conversationWith(gw, companyId, sender);
const messageOf = (externalId: string) => messageWithExternalId(gw, companyId, externalId);

describe('cloud-style callbacks: admin view and handshake', () => {
  it('shows the callback address and secrets to operators only', async () => {
    const info = await callbackInfo(gw, channelId);
    expect(info).toEqual({
      url: `${gw.baseUrl}/callbacks/chat_a_business/${channelId}`,
      provider: 'chat_a_business',
      family: 'cloud',
      secrets: {
        app_secret: expect.stringMatching(/^[0-9a-f]{64}$/),
        app_secret_source: 'channel',
        verify_token: expect.stringMatching(/^[0-9a-f]{32}$/),
        signature_header: 'x-hub-signature-256',
      },
    });
    const noToken = await gw.request('GET', `/admin/channels/${channelId}/callback`, { token: null });
    expectErrorShape(noToken, 401, 'unauthorized');
    const missing = await gw.request('GET', '/admin/channels/999999/callback', {
      token: null,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expectErrorShape(missing, 404, 'not_found');
  });

  it('answers the subscribe handshake with the challenge as text, 403 for a wrong token, 422 for a wrong mode', async () => {
    const ok = await gw.request(
      'GET',
      `/callbacks/chat_a_business/${channelId}?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=1158201444`,
      { token: null },
    );
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain/);
    expect(ok.text).toBe('1158201444');
    const wrong = await gw.request(
      'GET',
      `/callbacks/chat_a_business/${channelId}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`,
      { token: null },
    );
    expectErrorShape(wrong, 403, 'forbidden');
    const mode = await gw.request(
      'GET',
      `/callbacks/chat_a_business/${channelId}?hub.mode=unsubscribe&hub.verify_token=${verifyToken}&hub.challenge=1`,
      { token: null },
    );
    expectErrorShape(mode, 422, 'validation_failed');
    expectErrorShape(
      await gw.request(
        'GET',
        `/callbacks/chat_a_business/999999?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=1`,
        { token: null },
      ),
      404,
      'not_found',
    );
  });
});

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

describe('cloud-style callbacks: statuses', () => {
  // A company of its own, whose channel knows the phone-number id the recorded payloads are about:
  // the gateway sends on it (to the fake provider), which gives the statuses a message to move.
  let company: number;
  let channel: number;
  let secret: string;
  let companyEvents: CompanyEvents;
  let conversation: number;

  beforeAll(async () => {
    company = (await gw.request('POST', '/p1/companies', { json: { name: 'Cloud Sending Co' } })).body.data.external_id;
    companyEvents = await observeCompanyEvents(gw, company);
    const created = await gw.request('POST', `/p1/companies/${company}/channels`, {
      json: {
        provider: 'chat_a_business',
        hosting_type: 'cloud',
        token: 'EAAG-cloud-token',
        vendor_channel_id: PHONE_NUMBER_ID,
      },
    });
    expect(created.status, created.text).toBe(201);
    channel = created.body.data.external_id;
    secret = (await callbackInfo(gw, channel)).secrets.app_secret!;
    expect((await postCloud(gw, channel, fixture('cloud/text'), secret)).status).toBe(200);
    conversation = (await conversationWith(gw, company, '16505551234')).id;
  });
  afterAll(() => companyEvents.close());

  /** An outgoing message the provider accepted under `externalId` (sent), sent through the API; answers its reader. */
  async function sent(externalId: string): Promise<() => Promise<any>> {
    provider.script('cloud', {
      status: 200,
      body: { messaging_product: 'chat_a', contacts: [], messages: [{ id: externalId }] },
    });
    const created = await gw.request('POST', `/api/p2/conversations/${conversation}/messages`, {
      json: { company_id: company, text: 'Your order has shipped' },
    });
    expect(created.status, created.text).toBe(201);
    const path = `/api/p2/conversations/${conversation}/messages/${created.body.message.id}?company_id=${company}`;
    const read = async () => (await gw.request('GET', path)).body.message;
    await eventually(`message ${created.body.message.id} sent as ${externalId}`, async () => {
      const message = await read();
      return message.status === 'sent' && message.external_id === externalId;
    });
    return read;
  }
  const postStatus = (body: string) => postCloud(gw, channel, body, secret);

  it('moves an outgoing message only forward, whatever order the statuses arrive in', async () => {
    const read = await sent(OUTGOING_ID);
    const status = (name: string) => postStatus(fixture(`cloud/status-${name}`));

    let start = await companyEvents.count();
    expect((await status('delivered')).status).toBe(200);
    expect((await read()).status).toBe('delivered');
    expect(
      (await companyEvents.since(start)).map((e) => [e.name, (e.body.object as { status: string }).status]),
    ).toEqual([['message.update', 'delivered']]);

    start = await companyEvents.count();
    expect((await status('sent')).status).toBe(200); // late: nothing
    expect((await status('delivered')).status).toBe(200); // duplicate: nothing
    expect((await read()).status).toBe('delivered');
    expect(await companyEvents.since(start)).toEqual([]);

    expect((await status('read')).status).toBe(200);
    start = await companyEvents.count();
    expect((await status('delivered')).status).toBe(200);
    expect((await status('failed')).status).toBe(200);
    const final = await read();
    expect(final).toMatchObject({ status: 'read', details: null });
    expect(await companyEvents.since(start)).toEqual([]);
  });

  it('turns failed into error with the reason in details, and error is terminal', async () => {
    const failedBody = fixture('cloud/status-failed').replace(OUTGOING_ID, 'bmid.OUTGOING-FAIL');
    const read = await sent('bmid.OUTGOING-FAIL');
    const start = await companyEvents.count();
    expect((await postStatus(failedBody)).status).toBe(200);
    expect((await postStatus(fixture('cloud/status-read').replace(OUTGOING_ID, 'bmid.OUTGOING-FAIL'))).status).toBe(
      200,
    );
    const message = await read();
    expect(message.status).toBe('error');
    expect(message.details).toEqual({
      errors: [JSON.parse(failedBody).entry[0].changes[0].value.statuses[0].errors[0]],
    });
    const emitted = await companyEvents.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['message.update']);
    expect(messageOfEvent(emitted[0]!.body.object)).toEqual(message);
  });

  it('answers 200, stores nothing and emits nothing for a status of an unknown message', async () => {
    const stored = await messagingState(gw, company);
    const start = await companyEvents.count();
    expect((await postStatus(fixture('cloud/status-read').replace(OUTGOING_ID, 'bmid.NEVER-SEEN'))).status).toBe(200);
    expect(await messagingState(gw, company)).toEqual(stored);
    expect(await companyEvents.since(start)).toEqual([]);
  });
});

describe('callback secrets', () => {
  it('are never shown by the v1/v2 API nor written to the log', async () => {
    const texts = [
      (await gw.request('GET', `/p1/companies/${companyId}/channels`)).text,
      (await gw.request('GET', `/api/p2/companies/${companyId}/auths`)).text,
      (await gw.request('GET', `/api/p2/companies/${companyId}/auths/${channelId}`)).text,
      JSON.stringify(await events.since(0)),
    ];
    for (const text of texts) {
      expect(text).not.toContain(appSecret);
      expect(text).not.toContain(verifyToken);
    }
    expect(gw.logText()).not.toContain(appSecret);
    expect(gw.logText()).not.toContain(verifyToken);
  });
});

// That the channel's own secret stops counting once one is configured: callback-settings.test.ts.
describe('GATEWAY_CHAT_A_BUSINESS_APP_SECRET', () => {
  it("applies only the changes about the channel's own phone-number id when the channel knows it", async () => {
    const configured = 'operator-app-secret-0123456789abcdef';
    const other = await startTestGateway({
      ...TO_RECEIVERS,
      GATEWAY_CHAT_A_BUSINESS_APP_SECRET: configured,
    });
    try {
      const company = (await other.request('POST', '/p1/companies', { json: { name: 'Two numbers' } })).body.data
        .external_id;
      const create = (vendorChannelId: string) =>
        other.request('POST', `/p1/companies/${company}/channels`, {
          json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 't', vendor_channel_id: vendorChannelId },
        });
      const mine = (await create('106540352242922')).body.data.external_id;
      // The company has this channel alone: its messages are the channel's.
      const messages = async () => (await messagingState(other, company)).messages.length;

      // The fixture is about phone-number id 106540352242922: posted to a channel of that number, it counts.
      expect((await postCloud(other, mine, fixture('cloud/text'), configured)).status).toBe(200);
      expect(await messages()).toBe(1);

      // The same signed body about another number, posted at this channel's address, changes nothing.
      const foreign = fixture('cloud/text')
        .replaceAll('106540352242922', '999000111222333')
        .replaceAll('bmid.', 'bmid.other.');
      expect((await postCloud(other, mine, foreign, configured)).status).toBe(200);
      expect(await messages()).toBe(1);
    } finally {
      await other.close();
    }
  });
});
