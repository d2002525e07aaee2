import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createCallbackChannels, fixture, postBot, postCloud, postConnector } from '../helpers/callbacks.js';

// The ingest path answers rows it has just written from what it bound and the columns' defaults
// instead of reading them back: each answer must equal a read of the row, key for key. And what a
// callback writes that no API answer shows: the provider's media reference the fetcher reads.

let gw: TestGateway;
const store = () => gw.gateway.store;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
});
afterAll(() => gw.close());

describe('rows answered without reading them back', () => {
  it('equal what a read of the table answers: contact, conversation, message, changed conversation', async () => {
    const companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Rows Co' } })).body.data
      .external_id as number;
    const channelId = (
      await gw.request('POST', `/p1/companies/${companyId}/channels`, {
        json: { provider: 'chat_b', token: '123456:bot-token' },
      })
    ).body.data.external_id as number;
    const s = store();
    const channel = s.channels.findLiveCached(channelId)!;
    s.transaction(() => {
      const { contact, created } = s.contacts.findOrCreate(
        { companyId, channelId, externalId: 'rows-1', externalPublicId: '@rows', name: 'Rows', phone: '+100' },
        1_700_000_000_123,
      );
      expect(created).toBe(true);
      expect(Object.entries(contact)).toEqual(
        Object.entries(s.db.prepare('SELECT * FROM contacts WHERE id = ?').get(contact.id) as object),
      );

      const { conversation, created: opened } = s.conversations.findOrCreateFor(channel, contact, 1_700_000_000_456);
      expect(opened).toBe(true);
      expect(Object.entries(conversation)).toEqual(Object.entries(s.conversations.find(companyId, conversation.id)!));
      expect(s.conversations.findOrCreateFor(channel, contact, 1)).toEqual({ conversation, created: false });

      const message = s.messages.insertOnce(
        {
          companyId,
          channelId,
          conversationId: conversation.id,
          contactId: contact.id,
          externalId: 'rows-m1',
          repliedToId: 'rows-m0',
          income: true,
          status: 'created',
          text: 'hi',
          details: { a: [1] },
          sendToCrm: true,
          externalCreatedAt: 1_600_000_000_000,
        },
        1_700_000_000_789,
      )!;
      expect(Object.entries(message)).toEqual(Object.entries(s.messages.findById(message.id)!));
      expect(
        s.messages.insertOnce(
          {
            companyId,
            channelId,
            conversationId: conversation.id,
            contactId: contact.id,
            externalId: 'rows-m1',
            repliedToId: null,
            income: false,
            status: 'sent',
            text: null,
            details: null,
            sendToCrm: false,
          },
          1,
        ),
      ).toBeUndefined();

      const changed = s.conversations.changeInTransaction(
        conversation,
        { last_message_id: message.id, replied_state: 'replied', operational_state: 'archived' },
        1_700_000_001_000,
      );
      expect(Object.entries(changed)).toEqual(Object.entries(s.conversations.find(companyId, conversation.id)!));
    });
  });
});

describe('provider media', () => {
  it("an attachment of a cloud-style callback keeps the provider's media id and sha256 for the fetcher", async () => {
    const { cloudChannel, appSecret } = await createCallbackChannels(gw, 'Media Co');
    for (const name of ['cloud/image', 'cloud/audio-voice', 'cloud/video', 'cloud/document', 'cloud/sticker']) {
      const body = fixture(name);
      expect((await postCloud(gw, cloudChannel, body, appSecret)).status, name).toBe(200);
      const media = JSON.parse(body).entry[0].changes[0].value.messages[0];
      const row = store()
        .db.prepare(
          'SELECT origin, provider_media FROM attachments WHERE message_id = (SELECT id FROM messages WHERE external_id = ?)',
        )
        .get(media.id) as { origin: string; provider_media: string };
      expect(row.origin, name).toBe('provider');
      expect(JSON.parse(row.provider_media), name).toMatchObject({
        id: media[media.type].id,
        sha256: media[media.type].sha256,
      });
    }
  });
});

describe('bot-style receipts and media', () => {
  it('a message claims no receipt (its id deduplicates), an edit claims one; a photo keeps its largest size', async () => {
    const { botChannel, botSecret } = await createCallbackChannels(gw, 'Bot Rows Co');
    const receipts = () =>
      store().db.prepare('SELECT count(*) AS n FROM callback_receipts WHERE channel_id = ?').get(botChannel);
    expect((await postBot(gw, botChannel, fixture('bot/text'), botSecret)).status).toBe(200);
    expect(receipts()).toEqual({ n: 0 });
    expect((await postBot(gw, botChannel, fixture('bot/edited-message'), botSecret)).status).toBe(200);
    expect(receipts()).toEqual({ n: 1 });
    expect((await postBot(gw, botChannel, fixture('bot/photo'), botSecret)).status).toBe(200);
    const photo = store()
      .db.prepare(
        "SELECT provider_media FROM attachments WHERE file_name = 'photo.jpg' AND message_id IN (SELECT id FROM messages WHERE channel_id = ?)",
      )
      .get(botChannel) as { provider_media: string };
    expect(JSON.parse(photo.provider_media)).toEqual({
      kind: 'image',
      id: 'AgACAgIAAxkBAAIEsmZ_large',
      unique_id: 'AQADs3',
    });
  });
});

describe('connector receipts and media', () => {
  it('a message claims no receipt (its id deduplicates), other events one per webhook-id; media keep their id or URL', async () => {
    const { connectorChannel, connectorSecret } = await createCallbackChannels(gw, 'Connector Rows Co');
    const post = (name: string, id: string) =>
      postConnector(gw, 'chat_d', connectorChannel, fixture(name), connectorSecret, id);
    const receipts = () =>
      store().db.prepare('SELECT count(*) AS n FROM callback_receipts WHERE channel_id = ?').get(connectorChannel);
    expect((await post('connector/message-text', 'msg_rows_1')).status).toBe(200);
    expect((await post('connector/message-text', 'msg_rows_2')).status).toBe(200);
    expect(receipts()).toEqual({ n: 0 });
    expect((await post('connector/code', 'msg_rows_3')).status).toBe(200);
    expect((await post('connector/code', 'msg_rows_3')).status).toBe(200);
    expect(receipts()).toEqual({ n: 1 });
    expect((await post('connector/message-media', 'msg_rows_4')).status).toBe(200);
    const media = store()
      .db.prepare(
        "SELECT provider_media FROM attachments WHERE message_id = (SELECT id FROM messages WHERE channel_id = ? AND external_id = '3EB0C431C26A1916E5D8') ORDER BY id",
      )
      .all(connectorChannel) as { provider_media: string }[];
    expect(media.map((m) => JSON.parse(m.provider_media))).toEqual([
      { kind: 'image', id: 'media-7f3a' },
      { kind: 'voice', url: 'https://media.connector.example/m/9c1d.ogg' },
    ]);
  });
});
