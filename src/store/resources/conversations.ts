import type { ChannelRow } from './channels.js';
import type { ContactRow } from './contacts.js';
import type { Db } from '../engine/db.js';
import type { PageWindow } from '../../lib/paging.js';
import { participantsJson } from './participants.js';

export type OperationalState = 'open' | 'archived';
export type RepliedState = 'replied' | 'unreplied';

/** A conversation with what its presentation needs of its contact and channel. */
export interface ConversationRow {
  id: number;
  company_id: number;
  channel_id: number;
  contact_id: number;
  operational_state: OperationalState;
  replied_state: RepliedState;
  assignee_id: number | null;
  /** The company's note on the conversation (v1 PUT .../note); null without one. */
  note: string | null;
  /** Incoming messages since the company last marked the conversation read. */
  unread_count: number;
  last_message_id: number | null;
  created_at: number;
  last_updated_at: number;
  provider: string;
  channel_state: string;
  channel_deleted_at: number | null;
  contact_name: string;
  contact_phone: string | null;
  contact_external_id: string;
  contact_external_public_id: string;
  contact_avatar_url: string;
  contact_is_group: number;
  /** A group's participants as JSON text (src/store/resources/participants.ts); `[]` for a person's conversation. */
  participants: string;
}

export interface ConversationChanges {
  operational_state?: OperationalState;
  replied_state?: RepliedState;
  assignee_id?: number | null;
  note?: string | null;
  last_message_id?: number;
  unread_count?: number;
}

/** The columns every conversation UPDATE sets, besides the state. */
interface ConversationWrite {
  id: number;
  replied_state: RepliedState;
  assignee_id: number | null;
  note: string | null;
  unread_count: number;
  last_message_id: number | null;
  last_updated_at: number;
}

const SELECT = `
  SELECT conversations.*, channels.provider, channels.state AS channel_state, channels.deleted_at AS channel_deleted_at,
         contacts.name AS contact_name, contacts.phone AS contact_phone, contacts.external_id AS contact_external_id,
         contacts.external_public_id AS contact_external_public_id, contacts.avatar_url AS contact_avatar_url,
         contacts.is_group AS contact_is_group,
         CASE WHEN contacts.is_group = 1 THEN ${participantsJson('conversations.id')} ELSE '[]' END AS participants
  FROM conversations
  JOIN channels ON channels.id = conversations.channel_id
  JOIN contacts ON contacts.id = conversations.contact_id`;

/** Conversations, always read within their company. */
export class ConversationStore {
  private readonly byId;
  private readonly byContact;
  private readonly insertIgnore;
  private readonly update;
  private readonly updateSameState;
  private readonly pageAll;
  private readonly pageByState;
  private readonly countAll;
  private readonly countByState;

  constructor(db: Db) {
    this.byId = db.prepare<[number, number], ConversationRow>(
      `${SELECT} WHERE conversations.company_id = ? AND conversations.id = ?`,
    );
    this.byContact = db.prepare<[number, number], ConversationRow>(
      `${SELECT} WHERE conversations.channel_id = ? AND conversations.contact_id = ?`,
    );
    this.insertIgnore = db.prepare<[number, number, number, number, number]>(
      `INSERT INTO conversations (company_id, channel_id, contact_id, created_at, last_updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (channel_id, contact_id) DO NOTHING`,
    );
    this.update = db.prepare(
      `UPDATE conversations SET operational_state = @operational_state, replied_state = @replied_state,
         assignee_id = @assignee_id, note = @note, unread_count = @unread_count, last_message_id = @last_message_id,
         last_updated_at = @last_updated_at
       WHERE id = @id`,
    );
    // SQLite rewrites the entry of every index whose columns an UPDATE sets, changed or not: with the
    // state left out, a message in a conversation that stays open leaves conversations_company_state
    // alone (a page less written per callback).
    this.updateSameState = db.prepare(
      `UPDATE conversations SET replied_state = @replied_state, assignee_id = @assignee_id, note = @note,
         unread_count = @unread_count, last_message_id = @last_message_id, last_updated_at = @last_updated_at
       WHERE id = @id`,
    );
    this.pageAll = db.prepare<[number, number, number], ConversationRow>(
      `${SELECT} WHERE conversations.company_id = ? ORDER BY conversations.last_updated_at DESC, conversations.id DESC LIMIT ? OFFSET ?`,
    );
    this.pageByState = db.prepare<[number, string, number, number], ConversationRow>(
      `${SELECT} WHERE conversations.company_id = ? AND conversations.operational_state = ?
       ORDER BY conversations.last_updated_at DESC, conversations.id DESC LIMIT ? OFFSET ?`,
    );
    this.countAll = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM conversations WHERE company_id = ?');
    this.countByState = db.prepare<[number, string], { n: number }>(
      'SELECT count(*) AS n FROM conversations WHERE company_id = ? AND operational_state = ?',
    );
  }

  find(companyId: number, id: number): ConversationRow | undefined {
    return this.byId.get(companyId, id);
  }

  /** The conversation of a contact on a channel, created (open, unreplied) when new. */
  findOrCreate(
    companyId: number,
    channelId: number,
    contactId: number,
    now = Date.now(),
  ): { conversation: ConversationRow; created: boolean } {
    // Known conversations (the common case) take one read; the insert only runs for a new one.
    const known = this.byContact.get(channelId, contactId);
    if (known !== undefined) return { conversation: known, created: false };
    const { changes } = this.insertIgnore.run(companyId, channelId, contactId, now, now);
    return { conversation: this.byContact.get(channelId, contactId)!, created: changes === 1 };
  }

  /** Applies changes and answers the conversation as it is now. */
  change(row: ConversationRow, changes: ConversationChanges, now = Date.now()): ConversationRow {
    const values = {
      id: row.id,
      replied_state: changes.replied_state ?? row.replied_state,
      assignee_id: changes.assignee_id === undefined ? row.assignee_id : changes.assignee_id,
      note: changes.note === undefined ? row.note : changes.note,
      unread_count: changes.unread_count ?? row.unread_count,
      last_message_id: changes.last_message_id ?? row.last_message_id,
      last_updated_at: now,
    };
    this.write(values, changes.operational_state);
    return this.byId.get(row.company_id, row.id)!;
  }

  /**
   * findOrCreate for a channel and a contact read in the current transaction (the contact as it is
   * now, after any profile refresh): a new conversation is answered from them and the columns'
   * defaults instead of being read back (a test compares it with a read).
   */
  findOrCreateFor(
    channel: ChannelRow,
    contact: ContactRow,
    now = Date.now(),
  ): { conversation: ConversationRow; created: boolean } {
    const known = this.byContact.get(channel.id, contact.id);
    if (known !== undefined) return { conversation: known, created: false };
    const { changes, lastInsertRowid } = this.insertIgnore.run(channel.company_id, channel.id, contact.id, now, now);
    if (changes !== 1) return { conversation: this.byContact.get(channel.id, contact.id)!, created: false };
    return {
      conversation: {
        id: Number(lastInsertRowid),
        company_id: channel.company_id,
        channel_id: channel.id,
        contact_id: contact.id,
        operational_state: 'open',
        replied_state: 'unreplied',
        assignee_id: null,
        last_message_id: null,
        created_at: now,
        last_updated_at: now,
        // The columns added last come last in a read of the row.
        note: null,
        unread_count: 0,
        provider: channel.provider,
        channel_state: channel.state,
        channel_deleted_at: channel.deleted_at,
        contact_name: contact.name,
        contact_phone: contact.phone,
        contact_external_id: contact.external_id,
        contact_external_public_id: contact.external_public_id,
        contact_avatar_url: contact.avatar_url,
        contact_is_group: contact.is_group,
        participants: '[]',
      },
      created: true,
    };
  }

  /**
   * change for a row read (or made by findOrCreateFor) in the current transaction: its channel and
   * contact fields are still current, so the conversation is answered without reading it again.
   */
  changeInTransaction(row: ConversationRow, changes: ConversationChanges, now = Date.now()): ConversationRow {
    const next: ConversationRow = {
      ...row,
      operational_state: changes.operational_state ?? row.operational_state,
      replied_state: changes.replied_state ?? row.replied_state,
      assignee_id: changes.assignee_id === undefined ? row.assignee_id : changes.assignee_id,
      note: changes.note === undefined ? row.note : changes.note,
      unread_count: changes.unread_count ?? row.unread_count,
      last_message_id: changes.last_message_id ?? row.last_message_id,
      last_updated_at: now,
    };
    const values = {
      id: next.id,
      replied_state: next.replied_state,
      assignee_id: next.assignee_id,
      note: next.note,
      unread_count: next.unread_count,
      last_message_id: next.last_message_id,
      last_updated_at: now,
    };
    // `row` was read in this transaction: its state is the stored one.
    this.write(values, next.operational_state === row.operational_state ? undefined : next.operational_state);
    return next;
  }

  /** The UPDATE of a conversation, naming its state only when `state` is given (see updateSameState). */
  private write(values: ConversationWrite, state: OperationalState | undefined): void {
    if (state === undefined) this.updateSameState.run(values);
    else this.update.run(Object.assign({ operational_state: state }, values));
  }

  /** Most recently updated first. */
  list(
    companyId: number,
    state: OperationalState | undefined,
    { limit, offset }: PageWindow,
  ): { rows: ConversationRow[]; total: number } {
    if (state === undefined) {
      return { rows: this.pageAll.all(companyId, limit, offset), total: this.countAll.get(companyId)!.n };
    }
    return {
      rows: this.pageByState.all(companyId, state, limit, offset),
      total: this.countByState.get(companyId, state)!.n,
    };
  }
}
