// Erasure of one contact: DELETE /api/p2/companies/<id>/contacts/<id> removes its conversations,
// messages and files, scrubs it from every kept payload, and writes contact.delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { cloudSignature, createCallbackChannels, postConnector, type CallbackChannels } from '../helpers/callbacks.js';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';
import { attachmentFiles, storeMentions } from './store-scan.js';

let gw: TestGateway;
let receiver: Receiver;
let channels: CallbackChannels;

const ERASED = { phone: '4915199990001', name: 'Erika Erasmus' };
const KEPT = { phone: '4915177770002', name: 'Konrad Kept' };

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1', GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  receiver = await startReceiver(() => []);
  channels = await createCallbackChannels(gw, 'Erasure Co');
  const hook = await gw.request('POST', `/api/p2/companies/${channels.companyId}/webhooks`, {
    json: { url: receiver.url, active: true },
  });
  expect(hook.status, hook.text).toBe(201);
});
afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

/** A cloud-style callback of one text message from `who`, as the provider signs it. */
async function incoming(who: { phone: string; name: string }, id: string, text: string): Promise<void> {
  const body = JSON.stringify({
    object: 'x',
    entry: [
      {
        id: '1',
        changes: [
          {
            field: 'messages',
            value: {
              contacts: [{ wa_id: who.phone, profile: { name: who.name } }],
              messages: [
                {
                  from: who.phone,
                  id,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: text },
                },
              ],
            },
          },
        ],
      },
    ],
  });
  const res = await gw.request('POST', `/callbacks/chat_a_business/${channels.cloudChannel}`, {
    token: null,
    body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': cloudSignature(body, channels.appSecret) },
  });
  expect(res.status, res.text).toBe(200);
}

/** Uploads a file and sends it into the conversation: a message with an attachment whose bytes are on disk. */
async function sendFile(conversationId: number): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync('test/fixtures/image.png')], { type: 'image/png' }), 'image.png');
  const uploaded = await fetch(`${gw.baseUrl}/api/p2/companies/${channels.companyId}/attachments`, {
    method: 'POST',
    body: form,
    headers: { 'x-private-api-token': gw.token },
  });
  const attachment = ((await uploaded.json()) as { attachment: { id: number; attachment_url: string } }).attachment;
  const sent = await gw.request('POST', `/api/p2/conversations/${conversationId}/messages`, {
    json: { company_id: channels.companyId, text: 'here is the picture', attachment_ids: [attachment.id] },
  });
  expect(sent.status, sent.text).toBe(201);
  return new URL(attachment.attachment_url).pathname.split('/')[2]!;
}

function conversationOf(phone: string): { id: number; contact_id: number } {
  return gw.store.db
    .prepare<[string], { id: number; contact_id: number }>(
      'SELECT conversations.id, contact_id FROM conversations JOIN contacts ON contacts.id = contact_id WHERE contacts.external_id = ?',
    )
    .get(phone)!;
}

describe('DELETE /api/p2/companies/<id>/contacts/<id>', () => {
  it('leaves nothing of the contact in any table, payload or file, keeps the others, and writes contact.delete', async () => {
    await incoming(ERASED, 'wamid.erase.1', `hello, I am ${ERASED.name}`);
    await incoming(KEPT, 'wamid.keep.1', 'hello from the other one');
    const erased = conversationOf(ERASED.phone);
    const kept = conversationOf(KEPT.phone);
    const erasedFile = await sendFile(erased.id);
    const keptFile = await sendFile(kept.id);
    // Kept payloads everywhere: deliveries to the endpoint with their attempts, the outbox, the send jobs.
    await eventually('the events of both contacts delivered', () =>
      [ERASED.phone, KEPT.phone].every((phone) =>
        receiver.received.some((r) => JSON.stringify(r.body).includes(phone)),
      ),
    );
    expect(storeMentions(gw.store, [ERASED.phone, ERASED.name]).length).toBeGreaterThan(0);
    expect(attachmentFiles(gw.dataDir)).toEqual([erasedFile, keptFile].sort());

    const res = await gw.request('DELETE', `/api/p2/companies/${channels.companyId}/contacts/${erased.contact_id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      contact: {
        id: erased.contact_id,
        company_id: channels.companyId,
        conversation_ids: [erased.id],
        deleted_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    });

    expect(storeMentions(gw.store, [ERASED.phone, ERASED.name, 'wamid.erase.1'])).toEqual([]);
    expect(attachmentFiles(gw.dataDir)).toEqual([keptFile]);
    // The other contact keeps everything.
    expect(storeMentions(gw.store, [KEPT.phone]).length).toBeGreaterThan(0);
    const keptConversation = await gw.request(
      'GET',
      `/api/p2/conversations/${kept.id}?company_id=${channels.companyId}`,
    );
    expect(keptConversation.status).toBe(200);
    expect(keptConversation.body.conversation.sender_phone).toBe(KEPT.phone);
    const gone = await gw.request('GET', `/api/p2/conversations/${erased.id}?company_id=${channels.companyId}`);
    expectErrorShape(gone, 404, 'not_found');

    await eventually('contact.delete delivered', () =>
      receiver.received.some((r) => (r.body as { type?: string }).type === 'contact'),
    );
    const event = receiver.received.find((r) => (r.body as { type?: string }).type === 'contact')!.body;
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      event: 'delete',
      type: 'contact',
      created_at: res.body.contact.deleted_at,
      object: res.body.contact,
    });
    // The deliveries about the contact stay, scrubbed to ids.
    const scrubbed = gw.store.db
      .prepare<[], { event: string }>('SELECT event FROM webhook_deliveries WHERE event LIKE \'%"erased":true%\'')
      .all();
    expect(scrubbed.length).toBeGreaterThan(0);
    for (const { event } of scrubbed) {
      const body = (JSON.parse(event) as { body: Record<string, unknown> }).body;
      expect(Object.keys(body).every((key) => ['id', 'event', 'type', 'created_at', 'erased'].includes(key))).toBe(
        true,
      );
    }
  });

  it("erases one member of a group: the group, its other member and their messages stay, the live stream's log forgets it", async () => {
    // The company is watched by a live stream, so its events are in the stream's log too.
    gw.store.eventLog.watch(channels.companyId, Date.now());
    const GONE = { phone: '4915188880003', name: 'Greta Gone' };
    const STAY = { phone: '4915166660004', name: 'Stefan Stay' };
    const chat = { id: '120363000000000001@g.us', name: 'Erasure Group', group: true };
    const say = async (who: { phone: string; name: string }, id: string, text: string) => {
      const body = JSON.stringify({
        type: 'message',
        id,
        chat,
        sender: { id: `${who.phone}@c.us`, name: who.name, phone: `+${who.phone}` },
        timestamp: Math.floor(Date.now() / 1000),
        text,
      });
      const res = await postConnector(gw, 'chat_d', channels.connectorChannel, body, channels.connectorSecret);
      expect(res.status, res.text).toBe(200);
    };
    await say(GONE, 'group.gone.1', `hallo, hier ist ${GONE.name}`);
    await say(STAY, 'group.stay.1', 'hallo, hier bleibt jemand');
    await eventually('both members delivered', () =>
      [GONE.name, STAY.name].every((name) => receiver.received.some((r) => JSON.stringify(r.body).includes(name))),
    );
    const member = gw.store.db
      .prepare<[string], { id: number }>('SELECT id FROM contacts WHERE external_id = ?')
      .get(`${GONE.phone}@c.us`)!;
    const group = conversationOf(chat.id);
    const before = storeMentions(gw.store, [GONE.phone, GONE.name]);
    expect(before.some((place) => place.startsWith('company_events.envelope'))).toBe(true);

    const res = await gw.request('DELETE', `/api/p2/companies/${channels.companyId}/contacts/${member.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.contact.conversation_ids).toEqual([]);

    expect(storeMentions(gw.store, [GONE.phone, GONE.name, 'group.gone.1'])).toEqual([]);
    const conversation = await gw.request('GET', `/api/p2/conversations/${group.id}?company_id=${channels.companyId}`);
    expect(conversation.status).toBe(200);
    expect(conversation.body.conversation).toMatchObject({ group: true, sender_name: 'Erasure Group' });
    expect(conversation.body.conversation.participants.map((p: { name: string }) => p.name)).toEqual([STAY.name]);
    const messages = await gw.request(
      'GET',
      `/api/p2/conversations/${group.id}/messages?company_id=${channels.companyId}`,
    );
    expect(messages.body.messages.map((m: { message: string }) => m.message)).toEqual(['hallo, hier bleibt jemand']);
  });

  it('answers 404 for a contact erased already, unknown or of another company, in the error shape', async () => {
    const other = (await gw.request('POST', '/p1/companies', { json: { name: 'Other Co' } })).body.data.external_id;
    await incoming({ phone: '4915100000009', name: 'Nina Nine' }, 'wamid.erase.9', 'hi');
    const { contact_id: contactId } = conversationOf('4915100000009');
    expectErrorShape(await gw.request('DELETE', `/api/p2/companies/${other}/contacts/${contactId}`), 404, 'not_found');
    expectErrorShape(
      await gw.request('DELETE', `/api/p2/companies/${channels.companyId}/contacts/987654321`),
      404,
      'not_found',
    );
    expectErrorShape(
      await gw.request('DELETE', `/api/p2/companies/${channels.companyId}/contacts/abc`),
      404,
      'not_found',
    );
    const mismatch = await gw.request('DELETE', `/api/p2/companies/${channels.companyId}/contacts/${contactId}`, {
      json: { company_id: other },
    });
    expectErrorShape(mismatch, 422, 'validation_failed');
    expect(storeMentions(gw.store, ['Nina Nine']).length).toBeGreaterThan(0);
    expect((await gw.request('DELETE', `/api/p2/companies/${channels.companyId}/contacts/${contactId}`)).status).toBe(
      200,
    );
    expectErrorShape(
      await gw.request('DELETE', `/api/p2/companies/${channels.companyId}/contacts/${contactId}`),
      404,
      'not_found',
    );
    expectErrorShape(
      await gw.request('DELETE', `/api/p2/companies/${channels.companyId}/contacts/${contactId}`, { token: null }),
      401,
      'unauthorized',
    );
  });
});
