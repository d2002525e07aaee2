// Read state through the real HTTP API with the sandbox as the provider: the unread count of a
// conversation, marking it read, and the read receipt sent to providers that take one unless the
// channel was created with the hosted service's do_not_mark_as_read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emittedEvents, outboxMessages } from '../helpers/events.js';
import { eventually } from '../helpers/wait.js';
import { startCompatGateway, type CompatGateway } from './harness.js';

let c: CompatGateway;
beforeAll(async () => {
  c = await startCompatGateway();
});
afterAll(() => c.close());

/** A company with a connected auth and a conversation of two incoming messages (the ids, oldest first). */
async function twoIncoming(
  provider: string,
  body: Record<string, unknown> = {},
): Promise<{ company: number; auth: number; conversation: number; incoming: number[] }> {
  const { company, auth } = await c.connectedAuth('Read', provider, body);
  const incoming: number[] = [];
  for (const text of ['Hallo!', 'Noch da?']) incoming.push((await c.incoming(auth, text)).id);
  const conversation = c.gw.store.messages.findById(incoming[0]!)!.conversation_id;
  return { company, auth, conversation, incoming };
}

/** The read receipts queued for a conversation so far. */
const receipts = (conversation: number) =>
  (
    outboxMessages(c.gw.store, 'gateway.outbound') as { kind: string; action?: string; conversation_id: number }[]
  ).filter((job) => job.kind === 'message_action' && job.action === 'read' && job.conversation_id === conversation);

/** The company's message and conversation events written so far (auth news of the sandbox left out). */
const companyEvents = (company: number) =>
  emittedEvents(c.gw.store).filter(
    (e) => e.company_id === company && (e.name.startsWith('message.') || e.name.startsWith('conversation.')),
  );

const conversationUpdates = (company: number, from: number) =>
  c
    .hooks(company)
    .slice(from)
    .filter((h) => h.type === 'conversation' && h.event === 'update');

describe('POST /api/p2/conversations/<id>/read', () => {
  it('counts incoming messages, marks read with one conversation.update, and sends one read receipt up to the latest', async () => {
    const { company, conversation, incoming } = await twoIncoming('chat_a');
    await eventually('both message events', () => c.hooks(company).filter((h) => h.type === 'message').length === 2);
    // Each message.create carries the conversation as its transaction left it.
    expect(
      c
        .hooks(company)
        .filter((h) => h.type === 'message')
        .map((h) => h.object.conversation.unread_count),
    ).toEqual([1, 2]);
    // An outgoing message leaves the count alone.
    const reply = await c.api('POST', `/api/p2/conversations/${conversation}/messages`, {
      company_id: company,
      text: 'Ja',
    });
    // The sandbox's last news of the send (read): nothing of it comes later.
    await eventually(
      'the reply was read',
      () =>
        c
          .hooks(company)
          .some((h) => h.type === 'message' && h.object.id === reply.body.message.id && h.object.status === 'read'),
      10_000,
    );
    const shown = await c.api('GET', `/api/p2/conversations/${conversation}?company_id=${company}`);
    expect(shown.body.conversation.unread_count).toBe(2);

    await c.allDelivered(company);
    const before = c.hooks(company).length;
    const res = await c.api('POST', `/api/p2/conversations/${conversation}/read`, { company_id: company });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['conversation']);
    expect(res.body.conversation).toMatchObject({ id: conversation, unread_count: 0 });
    await eventually('conversation.update', () => conversationUpdates(company, before).length === 1);
    expect(conversationUpdates(company, before)[0]!.object).toEqual(res.body.conversation);
    const latest = c.gw.store.messages.findById(incoming[1]!)!;
    expect(receipts(conversation)).toEqual([
      expect.objectContaining({
        kind: 'message_action',
        action: 'read',
        message_id: latest.id,
        external_id: latest.external_id,
        company_id: company,
      }),
    ]);
    await eventually(
      'the sandbox took the receipt',
      () => c.gw.logText().includes('"action":"read"') && c.gw.logText().includes('"msg":"message action carried out"'),
      10_000,
    );

    // Read already: nothing changes, no event, no receipt.
    const events = companyEvents(company).length;
    const again = await c.api('POST', `/api/p2/conversations/${conversation}/read`, { company_id: company });
    expect([again.status, again.body.conversation.unread_count]).toEqual([200, 0]);
    expect(companyEvents(company)).toHaveLength(events);
    expect(receipts(conversation)).toHaveLength(1);
  });

  it('sends no read receipt for an auth created with do_not_mark_as_read, nor to a provider without receipts', async () => {
    const quiet = await twoIncoming('chat_a', { do_not_mark_as_read: true });
    expect(c.gw.store.channels.findLive(quiet.auth)!.settings.do_not_mark_as_read).toBe(true);
    const bot = await twoIncoming('chat_b', { token: '123456:bot-token' });
    for (const { company, conversation } of [quiet, bot]) {
      const before = c.hooks(company).length;
      const res = await c.api('POST', `/api/p2/conversations/${conversation}/read`, { company_id: company });
      expect([res.status, res.body.conversation.unread_count]).toEqual([200, 0]);
      await eventually('conversation.update', () => conversationUpdates(company, before).length === 1);
      expect(receipts(conversation)).toEqual([]);
    }
  });

  it('takes do_not_mark_as_read on v1 channel creation as well', async () => {
    const company = await c.company(`Read v1 ${Math.random()}`);
    const created = await c.api('POST', `/p1/companies/${company}/channels`, {
      provider: 'chat_d',
      do_not_mark_as_read: true,
    });
    expect(created.status).toBe(201);
    const channel = c.gw.store.channels.findLive(created.body.data.external_id as number)!;
    expect(channel.settings.do_not_mark_as_read).toBe(true);
    const refused = await c.api('POST', `/p1/companies/${company}/channels`, {
      provider: 'chat_b_personal',
      via_qr_code: true,
      do_not_mark_as_read: 'sometimes',
    });
    expect([refused.status, refused.body.errors[0].source]).toEqual([422, { pointer: '/do_not_mark_as_read' }]);
  });

  it('answers 422 without company_id and 404 for a conversation of another company, changing nothing', async () => {
    const { company, conversation } = await twoIncoming('chat_d');
    const stranger = await c.company(`Stranger ${Math.random()}`);
    const events = companyEvents(company).length;
    const missing = await c.api('POST', `/api/p2/conversations/${conversation}/read`, {});
    expect([missing.status, missing.body.errors[0].code, missing.body.errors[0].source]).toEqual([
      422,
      'validation_failed',
      { pointer: '/company_id' },
    ]);
    const foreign = await c.api('POST', `/api/p2/conversations/${conversation}/read`, { company_id: stranger });
    expect([foreign.status, foreign.body.errors[0].code]).toEqual([404, 'not_found']);
    expect(companyEvents(company)).toHaveLength(events);
    expect(c.gw.store.conversations.find(company, conversation)!.unread_count).toBe(2);
  });
});
