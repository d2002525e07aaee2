import { beforeEach, describe, expect, it } from 'vitest';
import type { ConversationRow } from './conversations.js';
import type { Store } from '../store.js';
import { storePerTest } from '../../../test/helpers/temp-store.js';

let store: Store;
let conversation: ConversationRow;
storePerTest('gateway-conversations-', (opened) => (store = opened));
beforeEach(() => {
  store.accounts.createWithToken('test', 'digest');
  const company = store.companies.insert({
    accountId: 1,
    name: 'company',
    phone: null,
    description: null,
    webhookUrl: null,
  }).id;
  const channel = store.channels.insert({
    companyId: company,
    provider: 'chat_b',
    state: 'enabled',
    settings: {},
    credentials: {},
  });
  const { contact } = store.contacts.findOrCreate(
    {
      companyId: company,
      channelId: channel.id,
      externalId: '42',
      externalPublicId: 'sender',
      name: 'Sender',
      phone: null,
    },
    1_000,
  );
  conversation = store.conversations.findOrCreateFor(channel, contact, 1_000).conversation;
});

const states = (companyId: number) => ({
  open: store.conversations.list(companyId, 'open', { limit: 10, offset: 0 }).rows.map((r) => r.id),
  archived: store.conversations.list(companyId, 'archived', { limit: 10, offset: 0 }).rows.map((r) => r.id),
});

describe('changing a conversation', () => {
  it('moves its state, and lists it under the new state only', () => {
    const archived = store.transaction(() =>
      store.conversations.changeInTransaction(conversation, { operational_state: 'archived' }, 2_000),
    );
    expect(archived).toEqual({ ...conversation, operational_state: 'archived', last_updated_at: 2_000 });
    expect(store.conversations.find(conversation.company_id, conversation.id)).toEqual(archived);
    expect(states(conversation.company_id)).toEqual({ open: [], archived: [conversation.id] });

    const reopened = store.transaction(() =>
      store.conversations.changeInTransaction(archived, { operational_state: 'open', last_message_id: 7 }, 3_000),
    );
    expect(store.conversations.find(conversation.company_id, conversation.id)).toEqual(reopened);
    expect(reopened).toMatchObject({ operational_state: 'open', last_message_id: 7, last_updated_at: 3_000 });
    expect(states(conversation.company_id)).toEqual({ open: [conversation.id], archived: [] });
  });

  it('moves the rest and keeps the state when the change names the state it has (a new message in an open conversation)', () => {
    const changed = store.transaction(() =>
      store.conversations.changeInTransaction(
        conversation,
        { operational_state: 'open', replied_state: 'replied', last_message_id: 9 },
        2_000,
      ),
    );
    expect(store.conversations.find(conversation.company_id, conversation.id)).toEqual(changed);
    expect(changed).toMatchObject({ operational_state: 'open', replied_state: 'replied', last_message_id: 9 });
    expect(states(conversation.company_id)).toEqual({ open: [conversation.id], archived: [] });
  });

  it('does not write back the state of a row read before someone else changed it', () => {
    store.conversations.change(conversation, { operational_state: 'archived' }, 2_000);
    // `conversation` still says open: a change of the assignee alone must leave it archived.
    const assigned = store.conversations.change(conversation, { assignee_id: 5 }, 3_000);
    expect(assigned).toMatchObject({ operational_state: 'archived', assignee_id: 5, last_updated_at: 3_000 });
    expect(states(conversation.company_id)).toEqual({ open: [], archived: [conversation.id] });
  });
});

describe('listing a company', () => {
  it('lists and counts its conversations, with and without a state, through the state index (no scan)', () => {
    const other = store.companies.insert({
      accountId: 1,
      name: 'other',
      phone: null,
      description: null,
      webhookUrl: null,
    }).id;
    const otherChannel = store.channels.insert({
      companyId: other,
      provider: 'chat_b',
      state: 'enabled',
      settings: {},
      credentials: {},
    });
    const open = (channelId: number, externalId: string, at: number) => {
      const channel = store.channels.findLive(channelId)!;
      const { contact } = store.contacts.findOrCreate(
        {
          companyId: channel.company_id,
          channelId,
          externalId,
          externalPublicId: externalId,
          name: externalId,
          phone: null,
        },
        at,
      );
      return store.conversations.findOrCreateFor(channel, contact, at).conversation;
    };
    const second = open(conversation.channel_id, '43', 2_000);
    open(otherChannel.id, '44', 3_000);
    store.conversations.change(second, { operational_state: 'archived' }, 4_000);

    const page = { limit: 10, offset: 0 };
    expect(store.conversations.list(conversation.company_id, undefined, page)).toMatchObject({
      rows: [{ id: second.id }, { id: conversation.id }],
      total: 2,
    });
    expect(store.conversations.list(conversation.company_id, 'archived', page)).toMatchObject({
      rows: [{ id: second.id }],
      total: 1,
    });
    expect(store.conversations.list(other, undefined, page).total).toBe(1);
    // conversations_company was dropped (migration 8): the state index, led by the company, serves both.
    const plan = (sql: string) =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(conversation.company_id) as { detail: string }[]).map(
        (r) => r.detail,
      );
    expect(plan('SELECT count(*) FROM conversations WHERE company_id = ?')).toEqual([
      'SEARCH conversations USING COVERING INDEX conversations_company_state (company_id=?)',
    ]);
    expect(plan('SELECT * FROM conversations WHERE company_id = ? ORDER BY last_updated_at DESC, id DESC')[0]).toBe(
      'SEARCH conversations USING INDEX conversations_company_state (company_id=?)',
    );
  });
});
