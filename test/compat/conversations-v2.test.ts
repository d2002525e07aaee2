import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emittedEvents, newEvents } from '../helpers/events.js';
import { callbackInfo, fixture, postBot } from '../helpers/callbacks.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { seedCompany, seedConversation } from '../helpers/seed.js';

/** pact-im/api-doc, the Conversation object: last_message_id and last_updated_at are null until the first message. */

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
});
afterAll(() => gw.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
type Conversation = { id: number; last_message_id: number | null; last_updated_at: string | null };

describe('a conversation before and after its first message', () => {
  it('a new incoming conversation comes with its first message: its create event and the message carry both', async () => {
    const { companyId, channelId } = await seedCompany(gw);
    const secret = (await callbackInfo(gw, channelId)).secrets.secret_token!;
    const before = emittedEvents(gw.gateway.store).length;
    expect((await postBot(gw, channelId, fixture('bot/text'), secret)).status).toBe(200);
    const events = newEvents(gw.gateway.store, before);
    const created = events.find((e) => e.name === 'conversation.create')!.body.object as Conversation;
    const message = events.find((e) => e.name === 'message.create')!.body.object as {
      id: number;
      conversation: Conversation;
    };
    expect(message.conversation.last_message_id).toBe(message.id);
    expect(message.conversation.last_updated_at).toMatch(ISO);
    expect(created).toEqual(message.conversation);
    const shown = await gw.request('GET', `/api/p2/conversations/${created.id}?company_id=${companyId}`);
    expect(shown.body.conversation).toMatchObject({
      last_message_id: message.id,
      last_updated_at: expect.stringMatching(ISO),
    });
  });

  it('stays null through changes without a message, and is set by the first sent message', async () => {
    const seeded = seedConversation(gw, await seedCompany(gw, gw.token, 'No messages yet'));
    const path = `/api/p2/conversations/${seeded.conversationId}`;
    const assigned = await gw.request('PUT', path, { json: { company_id: seeded.companyId, assignee_id: 5 } });
    expect(assigned.body.conversation).toMatchObject({ assignee_id: 5, last_message_id: null, last_updated_at: null });
    const list = await gw.request('GET', `/api/p2/conversations?company_id=${seeded.companyId}`);
    expect(list.body.conversations.map((c: Conversation) => [c.id, c.last_message_id, c.last_updated_at])).toEqual([
      [seeded.conversationId, null, null],
    ]);

    const sent = await gw.request('POST', `${path}/messages`, { json: { company_id: seeded.companyId, text: 'hi' } });
    expect(sent.status).toBe(201);
    const shown = (await gw.request('GET', `${path}?company_id=${seeded.companyId}`)).body.conversation as Conversation;
    expect(shown.last_message_id).toBe(sent.body.message.id);
    expect(shown.last_updated_at).toMatch(ISO);
  });
});
