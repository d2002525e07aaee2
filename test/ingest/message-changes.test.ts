// Reactions, edits and deletions that providers report, from the recorded shapes of the bot-style
// updates (`message_reaction`, `deleted_business_messages`) and our connector protocol (`reaction`,
// `edit`, `delete`): each a `message.update` with the documented fields, once per delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import {
  checkedEvents,
  createCallbackChannels,
  fixture,
  messageOfEvent,
  postBot,
  postConnector,
  rowCounts,
  type CallbackChannels,
} from '../helpers/callbacks.js';
import { emittedEvents } from '../helpers/events.js';

let gw: TestGateway;
let ch: CallbackChannels;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  ch = await createCallbackChannels(gw, 'Changes Co');
  expect((await postBot(gw, ch.botChannel, fixture('bot/text'), ch.botSecret)).status).toBe(200);
  expect((await connector('connector/message-text')).status).toBe(200);
});
afterAll(() => gw.close());

const store = () => gw.gateway.store;
const connector = (name: string, id?: string) =>
  postConnector(gw, 'chat_d', ch.connectorChannel, fixture(name), ch.connectorSecret, id);

/** The message as GET .../messages/<id> answers it. */
async function messageOf(channelId: number, externalId: string) {
  const row = store().messages.findByChannelExternalId(channelId, externalId)!;
  return (
    await gw.request(
      'GET',
      `/api/p2/conversations/${row.conversation_id}/messages/${row.id}?company_id=${ch.companyId}`,
    )
  ).body.message;
}

describe('bot-style updates', () => {
  it('message_reaction sets the person’s reaction, an empty new_reaction removes it; a repeated update changes nothing', async () => {
    const start = emittedEvents(store()).length;
    expect((await postBot(gw, ch.botChannel, fixture('bot/message-reaction'), ch.botSecret)).status).toBe(200);
    const reacted = await messageOf(ch.botChannel, '734891122:1201');
    expect(reacted.reactions).toEqual([{ emoji: '👍', from: '734891122', created_at: '2025-06-08T21:03:20.000Z' }]);
    const counts = rowCounts(store());
    expect((await postBot(gw, ch.botChannel, fixture('bot/message-reaction'), ch.botSecret)).status).toBe(200);
    expect(rowCounts(store())).toEqual(counts);

    expect((await postBot(gw, ch.botChannel, fixture('bot/message-reaction-removed'), ch.botSecret)).status).toBe(200);
    const removed = await messageOf(ch.botChannel, '734891122:1201');
    expect(removed.reactions).toEqual([]);
    const events = checkedEvents(store(), start);
    expect(events.map((e) => e.name)).toEqual(['message.update', 'message.update']);
    expect(messageOfEvent(events[0]!.body.object)).toEqual(reacted);
    expect(messageOfEvent(events[1]!.body.object)).toEqual(removed);
  });

  it('keeps emoji only: a reaction of custom emoji alone counts as none (the person’s reaction is removed)', async () => {
    const body = (updateId: number, newReaction: unknown[]) =>
      JSON.stringify({
        update_id: updateId,
        message_reaction: {
          chat: { id: 734891122, type: 'private' },
          message_id: 1201,
          user: { id: 734891122, first_name: 'Olga' },
          date: 1749416700,
          old_reaction: [],
          new_reaction: newReaction,
        },
      });
    expect(
      (await postBot(gw, ch.botChannel, body(815207320, [{ type: 'emoji', emoji: '🔥' }]), ch.botSecret)).status,
    ).toBe(200);
    expect((await messageOf(ch.botChannel, '734891122:1201')).reactions).toEqual([
      { emoji: '🔥', from: '734891122', created_at: '2025-06-08T21:05:00.000Z' },
    ]);
    const custom = [{ type: 'custom_emoji', custom_emoji_id: '5368324170671202286' }];
    expect((await postBot(gw, ch.botChannel, body(815207321, custom), ch.botSecret)).status).toBe(200);
    expect((await messageOf(ch.botChannel, '734891122:1201')).reactions).toEqual([]);
  });

  it('deleted_business_messages marks the known messages deleted, one message.update each; unknown ids are ignored', async () => {
    const start = emittedEvents(store()).length;
    expect((await postBot(gw, ch.botChannel, fixture('bot/deleted-business-messages'), ch.botSecret)).status).toBe(200);
    const deleted = await messageOf(ch.botChannel, '734891122:1201');
    expect(deleted).toMatchObject({ deleted: true, message: 'Hello, is the order ready?' });
    const events = checkedEvents(store(), start);
    expect(events.map((e) => [e.name, (e.body.object as { id: number }).id])).toEqual([['message.update', deleted.id]]);
    expect(messageOfEvent(events[0]!.body.object)).toEqual(deleted);
  });
});

describe('connector events', () => {
  it('reaction, edit and delete each write one message.update; a redelivered event (same webhook-id) changes nothing', async () => {
    const start = emittedEvents(store()).length;
    const externalId = '3EB0C431C26A1916E5D7';
    expect((await connector('connector/reaction', 'msg_reaction_1')).status).toBe(200);
    const reacted = await messageOf(ch.connectorChannel, externalId);
    expect(reacted.reactions).toEqual([{ emoji: '❤️', from: '491701234567', created_at: '2025-06-08T21:00:00.000Z' }]);
    const counts = rowCounts(store());
    expect((await connector('connector/reaction', 'msg_reaction_1')).status).toBe(200);
    expect(rowCounts(store())).toEqual(counts);

    expect((await connector('connector/edit', 'msg_edit_1')).status).toBe(200);
    const edited = await messageOf(ch.connectorChannel, externalId);
    expect(edited).toMatchObject({ message: 'Guten Abend!', details: { edited_at: '2025-06-08T21:01:00.000Z' } });

    expect((await connector('connector/delete', 'msg_delete_1')).status).toBe(200);
    const deleted = await messageOf(ch.connectorChannel, externalId);
    expect(deleted).toMatchObject({ deleted: true, message: 'Guten Abend!', reactions: reacted.reactions });

    const events = checkedEvents(store(), start);
    expect(events.map((e) => e.name)).toEqual(['message.update', 'message.update', 'message.update']);
    expect(events.map((e) => messageOfEvent(e.body.object))).toEqual([reacted, edited, deleted]);
  });

  it('refuses events that break the protocol with a 422 naming the field, leaving nothing', async () => {
    const counts = rowCounts(store());
    const cases: [unknown, string][] = [
      [{ type: 'reaction', message_id: 'x', from: 'y', timestamp: 1 }, '/emoji'],
      [{ type: 'edit', message_id: '', text: 'x', timestamp: 1 }, '/message_id'],
      [{ type: 'delete', message_ids: [], timestamp: 1 }, '/message_ids'],
      // An unknown field is refused on the event itself.
      [{ type: 'delete', message_ids: ['a'], timestamp: 1, extra: true }, ''],
    ];
    for (const [body, pointer] of cases) {
      const res = await postConnector(gw, 'chat_d', ch.connectorChannel, JSON.stringify(body), ch.connectorSecret);
      expect([res.status, res.body.errors[0].source?.pointer], JSON.stringify(body)).toEqual([422, pointer]);
    }
    expect(rowCounts(store())).toEqual(counts);
  });
});
