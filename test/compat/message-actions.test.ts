// Reactions and edits sent to the provider, through the real HTTP API with the sandbox as the
// provider and a real webhook receiver: each goes out on the outbound job path and comes back as
// `message.update` (docs/api.md, "Reactions, edits and read state").
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
  c.conversationOf('Actions', provider, body);

/**
 * Sends a message and waits until the sandbox reported it read (its last news of a send) and every
 * event of the company reached the receiver: what comes after is the test's own.
 */
async function sent(company: number, conversation: number, text: string): Promise<{ id: number }> {
  const res = await c.api('POST', `/api/p2/conversations/${conversation}/messages`, { company_id: company, text });
  const id = res.body.message.id as number;
  await eventually(
    'the provider took it and it was read',
    () => c.hooks(company).some((h) => h.type === 'message' && h.object.id === id && h.object.status === 'read'),
    10_000,
  );
  await c.allDelivered(company);
  return { id };
}

/** The message updates of one message the receiver got after `from` hooks. */
const updatesOf = (company: number, id: number, from: number) =>
  c
    .hooks(company)
    .slice(from)
    .filter((h) => h.type === 'message' && h.event === 'update' && h.object.id === id);

describe('reactions and edits at the provider', () => {
  it('a reaction goes out and comes back as message.update; removing it too', async () => {
    const { company, conversation, incoming } = await conversationOf('chat_a');
    const path = `/api/p2/conversations/${conversation}/messages/${incoming}/reactions`;
    const before = c.hooks(company).length;

    const added = await c.api('POST', path, { company_id: company, emoji: '👍' });
    expect(added.status).toBe(202);
    // Answered as it is: the provider has not answered yet.
    expect(added.body.message).toMatchObject({ id: incoming, reactions: [] });
    await eventually('the reaction came back', () => updatesOf(company, incoming, before).length === 1, 10_000);
    const [update] = updatesOf(company, incoming, before);
    expect(update!.object.reactions).toEqual([{ emoji: '👍', from: 'company', created_at: expect.any(String) }]);
    expect(Date.parse(update!.object.reactions[0].created_at)).not.toBeNaN();

    const removed = await c.api('DELETE', `${path}?company_id=${company}`);
    expect(removed.status).toBe(202);
    await eventually('the removal came back', () => updatesOf(company, incoming, before).length === 2, 10_000);
    expect(updatesOf(company, incoming, before)[1]!.object.reactions).toEqual([]);
    const shown = await c.api(
      'GET',
      `/api/p2/conversations/${conversation}/messages/${incoming}?company_id=${company}`,
    );
    expect(shown.body.message.reactions).toEqual([]);
  });

  it('an edit goes out and comes back as message.update with the new text and details.edited_at', async () => {
    const { company, conversation } = await conversationOf('chat_b_personal', { via_qr_code: true });
    const { id } = await sent(company, conversation, 'See you at 5');
    const before = c.hooks(company).length;
    const res = await c.api('PATCH', `/api/p2/conversations/${conversation}/messages/${id}`, {
      company_id: company,
      text: 'See you at 6',
    });
    expect(res.status).toBe(202);
    expect(res.body.message).toMatchObject({ id, message: 'See you at 5' });
    await eventually('the edit came back', () => updatesOf(company, id, before).length === 1, 10_000);
    const [update] = updatesOf(company, id, before);
    expect(update!.object).toMatchObject({ id, message: 'See you at 6', income: false, deleted: false });
    expect(Object.keys(update!.object.details)).toEqual(['edited_at']);
    expect(Date.parse(update!.object.details.edited_at)).not.toBeNaN();
  });

  it('an edit the provider refuses is logged and changes nothing', async () => {
    const { company, conversation } = await conversationOf('chat_d');
    const { id } = await sent(company, conversation, 'Original');
    const before = c.hooks(company).length;
    const res = await c.api('PATCH', `/api/p2/conversations/${conversation}/messages/${id}`, {
      company_id: company,
      text: '/fail',
    });
    expect(res.status).toBe(202);
    await eventually(
      'the refusal was logged',
      () => c.gw.logText().includes('"msg":"the provider did not carry out the message action"'),
      10_000,
    );
    await c.allDelivered(company);
    expect(updatesOf(company, id, before)).toEqual([]);
    expect(c.gw.store.messages.findById(id)!.text).toBe('Original');
  });
});

describe('what the provider or the message does not allow', () => {
  /** Outbound jobs and events written so far: a refusal writes neither. */
  const written = () => [outboxMessages(c.gw.store, 'gateway.outbound').length, emittedEvents(c.gw.store).length];

  it('answers 422 wrong_provider naming the provider and the operation', async () => {
    const { company, conversation, incoming } = await conversationOf('chat_c', { token: 'chat-c-token' });
    const business = await conversationOf('chat_a_business', { token: 'business-token', hosting_type: 'cloud' });
    const before = written();
    const react = await c.api('POST', `/api/p2/conversations/${conversation}/messages/${incoming}/reactions`, {
      company_id: company,
      emoji: '👍',
    });
    expect(react.status).toBe(422);
    expect(react.body.errors).toEqual([
      {
        status: 422,
        code: 'wrong_provider',
        title: 'Wrong provider for this action',
        detail: expect.stringMatching(/^chat_c does not take reactions from the gateway; reactions go to chat_a, /),
      },
    ]);
    const edit = await c.api('PATCH', `/api/p2/conversations/${business.conversation}/messages/${business.incoming}`, {
      company_id: business.company,
      text: 'changed',
    });
    expect([edit.status, edit.body.errors[0].code]).toEqual([422, 'wrong_provider']);
    expect(edit.body.errors[0].detail).toMatch(/^chat_a_business does not take edits from the gateway; edits go to /);
    expect(written()).toEqual(before);
  });

  it('answers 404 for a message of another conversation, 409 before the provider has it, 422 for bad input or an incoming edit', async () => {
    const first = await conversationOf('chat_a');
    const other = await conversationOf('chat_a');
    const messagePath = (id: number) => `/api/p2/conversations/${first.conversation}/messages/${id}`;
    const before = written();

    const foreign = await c.api('POST', `${messagePath(other.incoming)}/reactions`, {
      company_id: first.company,
      emoji: '👍',
    });
    expect([foreign.status, foreign.body.errors[0].code]).toEqual([404, 'not_found']);

    // Not at the provider yet: the outbound job path is stopped by marking the id unknown.
    c.gw.store.db.prepare('UPDATE messages SET external_id = NULL WHERE id = ?').run(first.incoming);
    const early = await c.api('POST', `${messagePath(first.incoming)}/reactions`, {
      company_id: first.company,
      emoji: '👍',
    });
    expect([early.status, early.body.errors[0].code, early.body.errors[0].detail]).toEqual([
      409,
      'conflict',
      `Message ${first.incoming} has not reached the provider yet; try again once it has an external_id.`,
    ]);

    const incomingEdit = await c.api(
      'PATCH',
      `/api/p2/conversations/${other.conversation}/messages/${other.incoming}`,
      {
        company_id: other.company,
        text: 'not mine',
      },
    );
    expect([incomingEdit.status, incomingEdit.body.errors[0].source]).toEqual([422, { pointer: '/text' }]);

    const badEmoji = await c.api('POST', `${messagePath(first.incoming)}/reactions`, {
      company_id: first.company,
      emoji: 'two words',
    });
    expect([badEmoji.status, badEmoji.body.errors[0].source]).toEqual([422, { pointer: '/emoji' }]);
    const emptyText = await c.api('PATCH', messagePath(first.incoming), { company_id: first.company, text: '' });
    expect([emptyText.status, emptyText.body.errors[0].source]).toEqual([422, { pointer: '/text' }]);
    expect(written()).toEqual(before);
  });
});
