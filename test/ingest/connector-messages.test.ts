// Connector message and status events through HTTP alone (docs/connector-protocol.md, "Transport and
// signing" and "Events"): refused events (signature, timestamp, provider, JSON, schema) store and emit
// nothing; messages, media, groups and statuses are read back through the v2 API and their events
// arrive as webhooks (test/helpers/company-events.ts), so this file runs against a cluster too
// (vitest.cluster.config.ts). Which events claim a receipt, and the provider's media reference, no
// API shows: written-rows.test.ts reads them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, type TestGateway } from '../helpers/gateway.js';
import { connectorHeaders, fixture, messageOfEvent, postConnector } from '../helpers/callbacks.js';
import type { CompanyEvents } from '../helpers/company-events.js';
import { messageWithExternalId } from '../helpers/company-messages.js';
import { connectorHelpers, startConnectorGateway, type ConnectorGateway } from './connector-fixtures.js';

let gw: TestGateway;
let company: ConnectorGateway;
let events: CompanyEvents;
let companyId: number;
let v1Channel: number;
let v1Secret: string;
let v2Secret: string;
let close: () => Promise<void>;

beforeAll(async () => {
  company = await startConnectorGateway();
  ({ gw, events, companyId, v1Channel, v1Secret, v2Secret, close } = company);
});
afterAll(() => close?.());

const { before, stored, conversationOf, post, postBody } = connectorHelpers(() => company);
const messageOf = (externalId: string) => messageWithExternalId(gw, companyId, externalId);

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
