import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emittedEvents, newEvents } from '../helpers/events.js';
import { expectErrorShape, failingFields, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { seedCompany, seedConversation, type Seeded } from '../helpers/seed.js';

let gw: TestGateway;
let seeded: Seeded;
const T0 = Date.parse('2026-11-01T10:00:00.000Z');

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());
beforeEach(async () => {
  // Inserted out of provider order: the list must follow external_created_at, not insertion.
  seeded = seedConversation(gw, await seedCompany(gw), { externalTimes: [T0 + 3000, T0 + 1000, T0 + 2000] });
});

const messagesPath = (s: Seeded = seeded) => `/api/p2/conversations/${s.conversationId}/messages`;
const send = (body: Record<string, unknown>, s: Seeded = seeded) =>
  gw.request('POST', messagesPath(s), { json: { company_id: s.companyId, ...body } });
/** Rows a request writes; the senders' outcomes of earlier sends (message.update events) may still arrive. */
const rowCounts = () =>
  gw.gateway.store.db
    .prepare<[], { messages: number; outbox: number }>(
      `SELECT (SELECT count(*) FROM messages) AS messages, (SELECT count(*) FROM outbox WHERE payload NOT LIKE '%"name":"message.update"%') AS outbox`,
    )
    .get()!;

function uploadedAttachment(companyId: number, mimeType = 'image/png'): number {
  return gw.gateway.store.attachments.insert({
    companyId,
    storageKey: randomBytes(32).toString('base64url'),
    fileName: 'photo.png',
    mimeType,
    size: 1234,
    width: 640,
    height: 480,
    pushToTalk: false,
  }).id;
}

describe('GET /api/p2/conversations/<id>/messages', () => {
  it('lists messages by external_created_at with integer meta', async () => {
    const res = await gw.request('GET', `${messagesPath()}?company_id=${seeded.companyId}`);
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ page: 1, entries_count: 3, per_page: 150 });
    expect(res.body.messages.map((m: { id: number }) => m.id)).toEqual([
      seeded.messageIds[1],
      seeded.messageIds[2],
      seeded.messageIds[0],
    ]);
    expect(res.body.messages[0]).toMatchObject({
      external_id: 'ext-555000111-1',
      company_id: seeded.companyId,
      conversation_id: seeded.conversationId,
      contact_id: seeded.contactId,
      external_created_at: '2026-11-01T10:00:01.000Z',
      income: true,
      status: 'created',
      message: 'incoming 1',
      reactions: [],
      details: null,
      attachments: [],
    });
  });

  it('pages with page and per_page, and reads them from a JSON body too', async () => {
    const res = await gw.request('GET', messagesPath(), {
      json: { company_id: seeded.companyId, page: 2, per_page: 2 },
    });
    expect(res.body.meta).toEqual({ page: 2, entries_count: 3, per_page: 2 });
    expect(res.body.messages.map((m: { id: number }) => m.id)).toEqual([seeded.messageIds[0]]);
    const beyond = await gw.request('GET', `${messagesPath()}?company_id=${seeded.companyId}&page=9`);
    expect(beyond.body).toEqual({ messages: [], meta: { page: 9, entries_count: 3, per_page: 150 } });
  });

  it.each([
    ['per_page=501', ['per_page']],
    ['per_page=0', ['per_page']],
    ['page=0', ['page']],
    ['per_page=abc', ['per_page']],
  ])('answers 422 for %s', async (query, fields) => {
    expect(failingFields(await gw.request('GET', `${messagesPath()}?company_id=${seeded.companyId}&${query}`))).toEqual(
      fields,
    );
  });

  it('accepts the documented maximum per_page of 500', async () => {
    expect((await gw.request('GET', `${messagesPath()}?company_id=${seeded.companyId}&per_page=500`)).status).toBe(200);
  });
});

describe('GET /api/p2/conversations/<cid>/messages/<mid>', () => {
  it('answers {message}', async () => {
    const res = await gw.request('GET', `${messagesPath()}/${seeded.messageIds[0]}?company_id=${seeded.companyId}`);
    expect(res.status).toBe(200);
    expect(res.body.message).toMatchObject({ id: seeded.messageIds[0], message: 'incoming 0', income: true });
  });

  it('answers 404 for a message of another conversation, and for another account', async () => {
    const other = seedConversation(
      gw,
      { companyId: seeded.companyId, channelId: seeded.channelId },
      { sender: '999', externalTimes: [T0] },
    );
    const res = await gw.request('GET', `${messagesPath()}/${other.messageIds[0]}?company_id=${seeded.companyId}`);
    expectErrorShape(res, 404, 'not_found');
    const foreign = await gw.request(
      'GET',
      `${messagesPath()}/${seeded.messageIds[0]}?company_id=${seeded.companyId}`,
      { token: await gw.createAccount() },
    );
    expectErrorShape(foreign, 404, 'not_found');
  });
});

describe('POST /api/p2/conversations/<id>/messages', () => {
  it('answers an outgoing message and writes message, send job and events in one go', async () => {
    const before = emittedEvents(gw.gateway.store).length;
    const outboundBefore = gw.gateway.store.db
      .prepare("SELECT count(*) AS n FROM outbox WHERE stream = 'gateway.outbound'")
      .get() as { n: number };
    const res = await send({ text: 'Hello there', replied_to_id: 'ext-555000111-0' });
    expect(res.status).toBe(201);
    const message = res.body.message;
    expect(message).toMatchObject({
      external_id: null,
      company_id: seeded.companyId,
      conversation_id: seeded.conversationId,
      contact_id: seeded.contactId,
      replied_to_id: 'ext-555000111-0',
      income: false,
      // pact-im/api-doc content/ru/v2/webhooks/message-events.md: an accepted outgoing message is `sent`, external_id null.
      status: 'sent',
      message: 'Hello there',
      reactions: [],
      details: null,
      delivery: false,
      deleted: false,
      attachments: [],
    });
    expect(message.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    // The request's own events; the sender's outcome (message.update) may already follow them.
    const events = newEvents(gw.gateway.store, before).filter((e) => e.name !== 'message.update');
    expect(events.map((e) => e.name)).toEqual(['message.create', 'conversation.update']);
    // The event nests the contact (internal id only: outgoing) and the conversation as the request left it.
    const { contact, conversation, ...eventMessage } = events[0]!.body.object as Record<string, unknown>;
    expect(eventMessage).toEqual(message);
    expect(contact).toEqual({
      id: seeded.contactId,
      internal_id: seeded.contactId,
      name: 'User 555000111',
      avatar_url: '',
      phone: null,
    });
    expect(conversation).toEqual(events[1]!.body.object);
    expect((events[1]!.body.object as { replied_state: string; last_message_id: number }).replied_state).toBe(
      'replied',
    );
    expect((events[1]!.body.object as { last_message_id: number }).last_message_id).toBe(message.id);

    const jobs = gw.gateway.store.db
      .prepare("SELECT key, payload FROM outbox WHERE stream = 'gateway.outbound' ORDER BY id")
      .all() as { key: string; payload: string }[];
    expect(jobs.length).toBe(outboundBefore.n + 1);
    const job = JSON.parse(jobs.at(-1)!.payload);
    expect(jobs.at(-1)!.key).toBe(String(seeded.channelId));
    expect(job).toMatchObject({
      kind: 'send_message',
      company_id: seeded.companyId,
      channel_id: seeded.channelId,
      message_id: message.id,
    });
    expect(job.job_id).toMatch(/^job_[0-9a-f]{32}$/);

    // The stored message is the one answered. The sender takes its job as soon as it is committed
    // and, with no provider API configured here, may already have marked the message failed.
    const listed = await gw.request('GET', `${messagesPath()}/${message.id}?company_id=${seeded.companyId}`);
    const { status, details, ...stored } = listed.body.message;
    const { status: _status, details: _details, ...answered } = message;
    expect(stored).toEqual(answered);
    expect([
      { status: 'sent', details: null },
      {
        status: 'error',
        details: { errors: [{ code: 'not_configured', title: 'Cannot send: GATEWAY_CHAT_B_API_URL is not set.' }] },
      },
    ]).toContainEqual({ status, details });
  });

  it('does not announce the message to the company when send_to_crm is false, but still sends it', async () => {
    const before = emittedEvents(gw.gateway.store).length;
    const res = await send({ text: 'quiet', send_to_crm: false });
    expect(res.status).toBe(201);
    expect(
      newEvents(gw.gateway.store, before)
        .map((e) => e.name)
        .filter((name) => name !== 'message.update'),
    ).toEqual(['conversation.update']);
    const job = gw.gateway.store.db
      .prepare("SELECT payload FROM outbox WHERE stream = 'gateway.outbound' ORDER BY id DESC LIMIT 1")
      .get() as { payload: string };
    expect(JSON.parse(job.payload).message_id).toBe(res.body.message.id);
  });

  it('sends one attachment and presents it', async () => {
    const attachmentId = uploadedAttachment(seeded.companyId);
    const res = await send({ attachment_ids: [attachmentId] });
    expect(res.status).toBe(201);
    expect(res.body.message.message).toBeNull();
    expect(res.body.message.attachments).toHaveLength(1);
    expect(res.body.message.attachments[0]).toMatchObject({
      id: attachmentId,
      message_id: res.body.message.id,
      mime_type: 'image/png',
    });
    // The same upload cannot ride on a second message.
    expect(failingFields(await send({ attachment_ids: [attachmentId] }))).toEqual(['attachment_ids/0']);
  });

  it.each([
    [{}, ['text']],
    [{ text: '' }, ['text']],
    [{ attachment_ids: [] }, ['attachment_ids']],
    [{ text: 'x', attachment_ids: [1, 2] }, ['attachment_ids']],
    [{ text: 'x', attachment_ids: ['a'] }, ['attachment_ids/0']],
    [{ text: 5 }, ['text']],
    [{ text: 'x'.repeat(4097) }, ['text']],
    [{ text: 'x', send_to_crm: 'yes' }, ['send_to_crm']],
    [{ text: 'x', replied_to_id: 'no-such-message' }, ['replied_to_id']],
  ])('answers 422 for %j and stores nothing', async (body, fields) => {
    const before = rowCounts();
    expect(failingFields(await send(body))).toEqual(fields);
    expect(rowCounts()).toEqual(before);
  });

  it("refuses another company's attachment like a missing one, storing nothing", async () => {
    const otherCompany = await seedCompany(gw, gw.token, 'Other');
    const foreign = uploadedAttachment(otherCompany.companyId);
    const before = rowCounts();
    const res = await send({ attachment_ids: [foreign] });
    expect(failingFields(res)).toEqual(['attachment_ids/0']);
    expect(res.body.errors[0].detail).toBe(`attachment ${foreign} was not found`);
    expect(rowCounts()).toEqual(before);
    expect(gw.gateway.store.attachments.findForCompany(otherCompany.companyId, foreign)!.message_id).toBeNull();
  });

  it('answers 409 for a disabled or deleted channel and stores nothing', async () => {
    gw.gateway.store.db.prepare("UPDATE channels SET state = 'disabled' WHERE id = ?").run(seeded.channelId);
    let before = rowCounts();
    const disabled = await send({ text: 'hi' });
    expect(expectErrorShape(disabled, 409, 'conflict')[0]!.detail).toMatch(/is disabled/);
    expect(rowCounts()).toEqual(before);

    await gw.request('DELETE', `/p1/companies/${seeded.companyId}/channels/${seeded.channelId}`);
    before = rowCounts();
    const deleted = await send({ text: 'hi' });
    expect(expectErrorShape(deleted, 409, 'conflict')[0]!.detail).toMatch(/has been deleted/);
    expect(rowCounts()).toEqual(before);
  });

  it('answers 404 for a conversation of another account', async () => {
    const res = await gw.request('POST', messagesPath(), {
      token: await gw.createAccount(),
      json: { company_id: seeded.companyId, text: 'x' },
    });
    expectErrorShape(res, 404, 'not_found');
  });
});
