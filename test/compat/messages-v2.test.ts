// Messages and their events as the hosted service's pages describe them, through the real HTTP API
// with the sandbox as the provider and a real webhook receiver (signatures verified).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emittedEvents, outboxMessages } from '../helpers/events.js';
import { eventually } from '../helpers/wait.js';
import { startCompatGateway, type CompatGateway } from './harness.js';

let c: CompatGateway;
beforeAll(async () => {
  c = await startCompatGateway();
});
afterAll(() => c.close());

/** A company with a connected auth of the provider and a conversation opened by an incoming message. */
const conversationOf = (provider: string, body?: Record<string, unknown>) =>
  c.conversationOf('Messages', provider, body);

async function sendAndWaitUntilRead(company: number, conversation: number, text: string): Promise<number> {
  const sent = await c.api('POST', `/api/p2/conversations/${conversation}/messages`, { company_id: company, text });
  const id = sent.body.message.id as number;
  // The sandbox reports delivered, then read: once read, nothing more comes for it.
  await eventually(
    'the provider took it and it was read',
    () => c.hooks(company).some((h) => h.type === 'message' && h.object.id === id && h.object.status === 'read'),
    10_000,
  );
  return id;
}

describe('pact-im/api-doc content/ru/v2/webhooks/message-events.md', () => {
  it('an incoming message: one create, status created, with the external contact and the conversation nested', async () => {
    const { company, conversation, incoming } = await conversationOf('chat_a');
    await eventually('message.create', () => c.hooks(company).some((h) => h.type === 'message'));
    const [hook] = c.hooks(company).filter((h) => h.type === 'message');
    expect(hook!.event).toBe('create');
    expect(hook!.object).toMatchObject({
      id: incoming,
      income: true,
      status: 'created',
      conversation_id: conversation,
    });
    expect(hook!.object.contact).toEqual({
      id: hook!.object.contact_id,
      external_id: '491701234567',
      external_public_id: expect.any(String),
      name: 'Jonas Weber',
      avatar_url: expect.any(String),
      phone: expect.anything(),
    });
    expect(hook!.object.conversation).toMatchObject({
      id: conversation,
      company_id: company,
      provider: 'chat_a',
      last_message_id: incoming,
      operational_state: 'open',
      replied_state: 'unreplied',
      group: false,
    });
  });

  it('an outgoing message: create with status sent and external_id null, then update with the external_id; the contact has only internal_id', async () => {
    const { company, conversation } = await conversationOf('chat_b_personal', { via_qr_code: true });
    const sent = await c.api('POST', `/api/p2/conversations/${conversation}/messages`, {
      company_id: company,
      text: 'Guten Tag',
    });
    expect(sent.body.message).toMatchObject({ status: 'sent', external_id: null, income: false });
    const id = sent.body.message.id as number;
    await eventually(
      'create and the update with the provider id',
      () => c.hooks(company).filter((h) => h.type === 'message' && h.object.id === id).length >= 2,
      10_000,
    );
    const [create, update] = c.hooks(company).filter((h) => h.type === 'message' && h.object.id === id);
    expect([create!.event, create!.object.status, create!.object.external_id]).toEqual(['create', 'sent', null]);
    expect(update!.event).toBe('update');
    expect(update!.object.external_id).toMatch(/^sbx_/);
    for (const hook of [create!, update!]) {
      expect(Object.keys(hook.object.contact).sort()).toEqual(['avatar_url', 'id', 'internal_id', 'name', 'phone']);
      expect(hook.object.conversation).toMatchObject({
        id: conversation,
        replied_state: 'replied',
        last_message_id: id,
      });
    }
  });
});

describe('pact-im/api-doc content/en/v2/messages/delete-message.md', () => {
  it('deletes messages: 200 with them deleted, a message.update each, and the provider (sandbox) asked through the connector', async () => {
    const { company, conversation, incoming } = await conversationOf('chat_a');
    const reply = await sendAndWaitUntilRead(company, conversation, 'Oops, wrong chat');
    const before = c.hooks(company).length;
    const res = await c.api('DELETE', `/api/p2/conversations/${conversation}/messages`, {
      company_id: company,
      message_ids: [reply, incoming],
    });
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m: { id: number; deleted: boolean }) => [m.id, m.deleted])).toEqual([
      [reply, true],
      [incoming, true],
    ]);
    expect(
      (await c.api('GET', `/api/p2/conversations/${conversation}/messages/${reply}?company_id=${company}`)).body.message
        .deleted,
    ).toBe(true);
    await eventually(
      'both updates',
      () =>
        c
          .hooks(company)
          .slice(before)
          .filter((h) => h.type === 'message').length === 2,
    );
    expect(
      c
        .hooks(company)
        .slice(before)
        .map((h) => [h.event, h.object.id, h.object.deleted]),
    ).toEqual([
      ['update', reply, true],
      ['update', incoming, true],
    ]);
    await eventually(
      'the provider deleted them',
      () => c.gw.logText().includes('"msg":"messages deleted at the provider"'),
      10_000,
    );

    // Deleting again changes nothing and writes nothing: no event and no provider job, both of which
    // a deletion writes in the transaction of its answer (src/domain/message-deletion.ts).
    const events = emittedEvents(c.gw.store).length;
    const outbound = outboxMessages(c.gw.store, 'gateway.outbound').length;
    const again = await c.api('DELETE', `/api/p2/conversations/${conversation}/messages`, {
      company_id: company,
      message_ids: [reply],
    });
    expect([again.status, again.body.messages[0].deleted]).toEqual([200, true]);
    expect(emittedEvents(c.gw.store)).toHaveLength(events);
    expect(outboxMessages(c.gw.store, 'gateway.outbound')).toHaveLength(outbound);
    expect(c.hooks(company).length).toBe(before + 2);
  });

  it('refuses more than 100 ids, unknown ids and messages older than 48 hours with a 422 naming them, changing nothing', async () => {
    const { company, conversation, incoming } = await conversationOf('chat_d');
    const path = `/api/p2/conversations/${conversation}/messages`;
    const pointers = (res: { body: { errors: { source?: { pointer: string } }[] } }) =>
      res.body.errors.map((e) => e.source?.pointer);
    const many = await c.api('DELETE', path, {
      company_id: company,
      message_ids: Array.from({ length: 101 }, (_, i) => i + 1),
    });
    expect([many.status, pointers(many)]).toEqual([422, ['/message_ids']]);
    const unknown = await c.api('DELETE', path, { company_id: company, message_ids: [incoming, 999_999] });
    expect([unknown.status, pointers(unknown)]).toEqual([422, ['/message_ids/1']]);
    c.gw.store.db.prepare('UPDATE messages SET created_at = ? WHERE id = ?').run(Date.now() - 49 * 3_600_000, incoming);
    const old = await c.api('DELETE', path, { company_id: company, message_ids: [incoming] });
    expect([old.status, pointers(old)]).toEqual([422, ['/message_ids/0']]);
    expect(c.gw.store.messages.findById(incoming)!.deleted).toBe(0);
  });

  it('answers 422 wrong_provider for providers the page does not name', async () => {
    const { company, conversation, incoming } = await conversationOf('chat_b', { token: '123456:bot-token' });
    const res = await c.api('DELETE', `/api/p2/conversations/${conversation}/messages`, {
      company_id: company,
      message_ids: [incoming],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ status: 422, code: 'wrong_provider' });
    expect(c.gw.store.messages.findById(incoming)!.deleted).toBe(0);
  });
});
