// Group chats through the connector (chat_a) end to end: provider callbacks over HTTP (the connector
// protocol), the v2 API and events at a v2 endpoint, the v1 payloads at the company's webhook_url
// (pact-im/api-doc _includes/v1_webhooks.md, "Group chats"), and a send into the group reaching the
// fake provider. The tests build on each other: the first creates the group conversation the others use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  groupConversationContactV1Event,
  groupConversationV1Event,
  groupMessageV1Event,
} from '../../schemas/events/messaging-v1.js';
import { rowCounts } from '../helpers/callbacks.js';
import type { FakeProvider } from '../helpers/fake-provider.js';
import type { TestGateway } from '../helpers/gateway.js';
import type { Receiver } from '../helpers/receiver.js';
import { compileSchema, schemaErrors } from '../helpers/schemas.js';
import { eventually } from '../helpers/wait.js';
import { GROUP, groupMessage, groupsHelpers, JONAS, startGroupsGateway, type Hook } from './groups-fixtures.js';

let gw: TestGateway;
let fake: FakeProvider;
let receiver: Receiver;
let close: () => Promise<void>;
const secrets: string[] = [];

beforeAll(async () => {
  ({ gw, fake, receiver, close } = await startGroupsGateway(() => secrets));
});
afterAll(() => close?.());

const { store, newReceivingCompany, connectorChannel } = groupsHelpers(() => ({ gw, fake, receiver }), secrets);
const OLGA = { id: '491709876543@c.us', name: 'Olga Petrova', public_id: 'olga.p' };

const delivered = (secret: number): Hook[] =>
  receiver.received.filter((h) => h.verifiedBy.includes(secret)).map((h) => h.body as Hook);

const v1Schemas: Record<string, ReturnType<typeof compileSchema>> = {
  group_conversation: compileSchema(groupConversationV1Event),
  group_message: compileSchema(groupMessageV1Event),
  group_conversation_contact: compileSchema(groupConversationContactV1Event),
};
function expectV1GroupShapes(hooks: Hook[]): void {
  for (const hook of hooks) {
    const validate = v1Schemas[hook.type as string]!;
    expect(validate(hook), schemaErrors(validate)).toBe(true);
  }
}

describe('group chats through the connector (chat_a)', () => {
  let company: { id: number; v1: number; v2: number };
  let channel: number;
  let conversationId: number;

  it("two members' messages arrive as one group conversation with both as participants; v2 events carry the group and the author; the webhook_url gets the documented group payloads", async () => {
    company = await newReceivingCompany();
    channel = await connectorChannel(company.id, 'chat_a');
    expect(
      await fake.connectorCallback(channel, groupMessage('G-1', JONAS, 'Morgen kommt die Lieferung', 1749416400)),
    ).toBe(200);
    expect(await fake.connectorCallback(channel, groupMessage('G-2', OLGA, 'Danke!', 1749416460))).toBe(200);

    const conversations = await gw.request('GET', `/api/p2/conversations?company_id=${company.id}`);
    expect(conversations.status).toBe(200);
    expect(conversations.body.conversations).toHaveLength(1);
    conversationId = conversations.body.conversations[0].id;
    const jonas = store().db.prepare('SELECT * FROM contacts WHERE external_id = ?').get(JONAS.id) as Hook;
    const olga = store().db.prepare('SELECT * FROM contacts WHERE external_id = ?').get(OLGA.id) as Hook;
    const participants = [
      {
        id: jonas.id,
        name: 'Jonas Weber',
        phone: '491701234567',
        avatar_url: '',
        external_id: JONAS.id,
        external_public_id: '491701234567',
      },
      {
        id: olga.id,
        name: 'Olga Petrova',
        phone: null,
        avatar_url: '',
        external_id: OLGA.id,
        external_public_id: 'olga.p',
      },
    ];
    expect(conversations.body.conversations[0]).toMatchObject({
      sender_name: 'Lieferanten',
      sender_phone: null,
      sender_external_id: GROUP,
      provider: 'chat_a',
      group: true,
      participants,
    });
    const messages = await gw.request(
      'GET',
      `/api/p2/conversations/${conversationId}/messages?company_id=${company.id}`,
    );
    expect(messages.body.messages.map((m: Hook) => [m.external_id, m.contact_id, m.message])).toEqual([
      ['G-1', jonas.id, 'Morgen kommt die Lieferung'],
      ['G-2', olga.id, 'Danke!'],
    ]);
    const [first, second] = messages.body.messages as [Hook, Hook];

    const messaging = () => delivered(company.v2).filter((h) => h.type === 'conversation' || h.type === 'message');
    // v2: the group in every conversation, the author as each message's contact; a member joining is a conversation.update.
    await eventually('the v2 events', () => messaging().length === 4);
    const v2 = messaging();
    const byName = (type: string, event: string) => v2.filter((h) => h.type === type && h.event === event);
    expect(byName('conversation', 'create').map((h) => h.object.participants)).toEqual([[participants[0]]]);
    expect(byName('conversation', 'update').map((h) => [h.object.group, h.object.participants])).toEqual([
      [true, participants],
    ]);
    expect(
      byName('message', 'create')
        .map((h) => [h.object.external_id, h.object.contact, h.object.conversation.group])
        .sort(),
    ).toEqual([
      ['G-1', participants[0], true],
      ['G-2', participants[1], true],
    ]);

    // v1: exactly the documented group payloads, none of the one-to-one ones.
    await eventually(
      'the v1 group payloads',
      () => delivered(company.v1).filter((h) => String(h.type).startsWith('group_')).length === 5,
    );
    // Of the messaging payloads the webhook_url got, the group ones only (its test POST and the channel's aside).
    const messagingTypes = [
      'conversation',
      'message',
      'group_conversation',
      'group_message',
      'group_conversation_contact',
    ];
    expect(
      delivered(company.v1)
        .map((h) => h.type)
        .filter((type) => messagingTypes.includes(type))
        .sort(),
    ).toEqual([
      'group_conversation',
      'group_conversation_contact',
      'group_conversation_contact',
      'group_message',
      'group_message',
    ]);
    const v1 = delivered(company.v1).filter((h) => String(h.type).startsWith('group_'));
    expectV1GroupShapes(v1);
    const conversation = store().conversations.find(company.id, conversationId)!;
    const envelope = (type: string, event: string) => ({
      id: expect.stringMatching(/^evt_/),
      type,
      event,
      company_id: company.id,
      created_at: expect.any(String),
    });
    expect(v1.filter((h) => h.type === 'group_conversation')).toEqual([
      {
        ...envelope('group_conversation', 'new'),
        data: {
          name: 'Lieferanten',
          avatar_url: null,
          channel_id: channel,
          created_at: new Date(conversation.created_at).toISOString(),
          external_id: conversationId,
          channel_type: 'chat_a',
          last_message_at: null,
          sender_external_id: GROUP,
          created_at_timestamp: Math.floor(conversation.created_at / 1000),
          last_income_message_at: null,
        },
      },
    ]);
    const contactHooks = v1.filter((h) => h.type === 'group_conversation_contact');
    expect(contactHooks.map((h) => h.data.contact.external_public_id).sort()).toEqual(['491701234567', 'olga.p']);
    expect(contactHooks.find((h) => h.data.contact.external_public_id === 'olga.p')).toEqual({
      ...envelope('group_conversation_contact', 'new'),
      data: {
        contact: { external_public_id: 'olga.p' },
        channel_id: channel,
        channel_type: 'chat_a',
        date_timestamp: expect.any(Number),
        conversation_id: conversationId,
      },
    });
    const messageHooks = v1.filter((h) => h.type === 'group_message');
    const rowOf = (m: Hook) => store().messages.findById(m.id)!;
    expect(messageHooks.find((h) => h.data.external_id === first.id)).toEqual({
      ...envelope('group_message', 'new'),
      data: {
        ack: 0,
        income: true,
        channel: { id: channel, type: 'chat_a' },
        message: 'Morgen kommt die Lieferung',
        location: null,
        channel_id: channel,
        created_at: new Date(rowOf(first).created_at).toISOString(),
        attachments: [],
        external_id: first.id,
        channel_type: 'chat_a',
        conversation_id: conversationId,
        external_public_id: '491701234567',
        created_at_timestamp: Math.floor(rowOf(first).created_at / 1000),
        external_created_at_timestamp: 1749416400,
      },
    });
    expect(messageHooks.find((h) => h.data.external_id === second.id)?.data).toMatchObject({
      external_public_id: 'olga.p',
      external_created_at_timestamp: 1749416460,
    });
  });

  it("a member's next message adds no participant: no conversation.update, no group_conversation_contact", async () => {
    const before = rowCounts(store());
    const participantsBefore = store().participants.json(conversationId);
    expect(await fake.connectorCallback(channel, groupMessage('G-3', JONAS, 'Um 10 Uhr', 1749416500))).toBe(200);
    await eventually('group_message new of G-3', () =>
      delivered(company.v1).some(
        (h) => h.type === 'group_message' && h.data.external_created_at_timestamp === 1749416500,
      ),
    );
    expect(store().participants.json(conversationId)).toBe(participantsBefore);
    const written = rowCounts(store());
    expect(written).toEqual({ ...before, messages: before.messages + 1, events: before.events + 1 });
  });

  it("a message sent into the group goes to the group's id at the connector; the webhook_url gets group_message new and ack", async () => {
    const sent = await gw.request('POST', `/api/p2/conversations/${conversationId}/messages`, {
      json: { company_id: company.id, text: 'Wir sind bereit.' },
    });
    expect(sent.status).toBe(201);
    const messageId = sent.body.message.id as number;
    await eventually(
      'the send at the connector',
      () => fake.callsOf('connector', `/sessions/${channel}/messages`).length === 1,
    );
    const call = fake.callsOf('connector', `/sessions/${channel}/messages`)[0]!;
    expect(call.body.to).toEqual({ id: GROUP, phone: null });
    expect(call.body.text).toBe('Wir sind bereit.');

    await eventually('group_message ack with the provider id', () =>
      delivered(company.v1).some(
        (h) => h.type === 'group_message' && h.event === 'ack' && h.data.external_id === messageId,
      ),
    );
    const hooks = delivered(company.v1).filter((h) => h.type === 'group_message' && h.data.external_id === messageId);
    expectV1GroupShapes(hooks);
    expect(hooks.find((h) => h.event === 'new')!.data).toMatchObject({
      ack: 1,
      income: false,
      message: 'Wir sind bereit.',
      conversation_id: conversationId,
      external_public_id: null,
    });
    const ack = hooks.find((h) => h.event === 'ack')!;
    expect(ack).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'group_message',
      event: 'ack',
      company_id: company.id,
      created_at: expect.any(String),
      data: {
        channel: { id: channel, type: 'chat_a' },
        timestamp: Math.floor(Date.parse(ack.created_at) / 1000),
        external_id: messageId,
        participant: null,
        conversation_id: conversationId,
        external_public_id: null,
        ack: 1,
      },
    });
  });

  it('refuses a malformed sender (empty id, bad phone, unknown field) with 422 and stores nothing', async () => {
    const before = rowCounts(store());
    const post = (sender: Record<string, unknown>) =>
      fake.connectorCallback(channel, groupMessage('BAD-1', sender, 'x', 1749416600));
    expect(await post({ id: '' })).toBe(422);
    expect(await post({ id: 'a', phone: 'not a phone' })).toBe(422);
    expect(await post({ id: 'a', unknown: 1 })).toBe(422);
    expect(rowCounts(store())).toEqual(before);
  });
});
