import type { Db } from '../engine/db.js';
import type { PageWindow } from '../../lib/paging.js';

export type MessageStatus = 'created' | 'sent' | 'delivered' | 'read' | 'error';

export interface MessageRow {
  id: number;
  company_id: number;
  channel_id: number;
  conversation_id: number;
  contact_id: number;
  external_id: string | null;
  replied_to_id: string | null;
  income: number;
  status: MessageStatus;
  text: string | null;
  reactions: string;
  details: string | null;
  delivery: number;
  deleted: number;
  send_to_crm: number;
  created_at: number;
  external_created_at: number;
}

export interface NewMessage {
  companyId: number;
  channelId: number;
  conversationId: number;
  contactId: number;
  externalId: string | null;
  repliedToId: string | null;
  income: boolean;
  status: MessageStatus;
  text: string | null;
  details: unknown;
  sendToCrm: boolean;
  externalCreatedAt?: number;
}

/** Messages of conversations. */
export class MessageStore {
  private readonly insertOne;
  private readonly byId;
  private readonly byExternalId;
  private readonly page;
  private readonly countInConversation;
  private readonly insertNew;
  private readonly byChannelExternalId;
  private readonly compareAndSetStatus;
  private readonly updateReactions;
  private readonly updateText;
  private readonly byIdOnly;
  private readonly lastIncomingOne;
  private readonly markDeletedOne;
  private readonly markSent;

  constructor(db: Db) {
    this.insertOne = db.prepare(
      `INSERT INTO messages (company_id, channel_id, conversation_id, contact_id, external_id, replied_to_id, income, status,
         text, details, send_to_crm, created_at, external_created_at)
       VALUES (@company_id, @channel_id, @conversation_id, @contact_id, @external_id, @replied_to_id, @income, @status,
         @text, @details, @send_to_crm, @created_at, @external_created_at)
       RETURNING *`,
    );
    this.byId = db.prepare<[number, number], MessageRow>('SELECT * FROM messages WHERE conversation_id = ? AND id = ?');
    this.byExternalId = db.prepare<[number, string], MessageRow>(
      'SELECT * FROM messages WHERE conversation_id = ? AND external_id = ? LIMIT 1',
    );
    this.page = db.prepare<[number, number, number], MessageRow>(
      'SELECT * FROM messages WHERE conversation_id = ? ORDER BY external_created_at, id LIMIT ? OFFSET ?',
    );
    this.countInConversation = db.prepare<[number], { n: number }>(
      'SELECT count(*) AS n FROM messages WHERE conversation_id = ?',
    );
    // The partial unique index messages_channel_external makes this the deduplication of callbacks.
    this.insertNew = db.prepare(
      `INSERT INTO messages (company_id, channel_id, conversation_id, contact_id, external_id, replied_to_id, income, status,
         text, details, send_to_crm, created_at, external_created_at)
       VALUES (@company_id, @channel_id, @conversation_id, @contact_id, @external_id, @replied_to_id, @income, @status,
         @text, @details, @send_to_crm, @created_at, @external_created_at)
       ON CONFLICT (channel_id, external_id) WHERE external_id IS NOT NULL DO NOTHING`,
    );
    this.byChannelExternalId = db.prepare<[number, string], MessageRow>(
      'SELECT * FROM messages WHERE channel_id = ? AND external_id = ?',
    );
    this.compareAndSetStatus = db.prepare<[MessageStatus, string | null, number, MessageStatus], MessageRow>(
      'UPDATE messages SET status = ?, details = ? WHERE id = ? AND status = ? RETURNING *',
    );
    this.updateReactions = db.prepare<[string, number], MessageRow>(
      'UPDATE messages SET reactions = ? WHERE id = ? RETURNING *',
    );
    this.updateText = db.prepare<[string | null, string | null, number], MessageRow>(
      'UPDATE messages SET text = ?, details = ? WHERE id = ? RETURNING *',
    );
    this.byIdOnly = db.prepare<[number], MessageRow>('SELECT * FROM messages WHERE id = ?');
    this.lastIncomingOne = db.prepare<[number], MessageRow>(
      `SELECT * FROM messages WHERE conversation_id = ? AND income = 1 AND external_id IS NOT NULL
       ORDER BY external_created_at DESC, id DESC LIMIT 1`,
    );
    this.markDeletedOne = db.prepare<[number], MessageRow>(
      'UPDATE messages SET deleted = 1 WHERE id = ? AND deleted = 0 RETURNING *',
    );
    // OR IGNORE: an id the channel already has (a connector's echo of the send) leaves the row as it is.
    // An outgoing message waits for its id as `sent` (or `created`, as older rows were stored).
    this.markSent = db.prepare<[string, number], MessageRow>(
      "UPDATE OR IGNORE messages SET external_id = ?, status = 'sent' WHERE id = ? AND status IN ('created', 'sent') AND external_id IS NULL AND income = 0 RETURNING *",
    );
  }

  insert(message: NewMessage, now = Date.now()): MessageRow {
    return this.insertOne.get(insertParams(message, now)) as MessageRow;
  }

  /**
   * Inserts a message unless the channel already has one with its external id (atomic: of
   * concurrent inserts of the same provider message exactly one returns the row, the others undefined).
   */
  insertOnce(message: NewMessage & { externalId: string }, now = Date.now()): MessageRow | undefined {
    // No RETURNING (it costs SQLite more than the insert itself): the row is what was bound, its
    // id and the columns' defaults, in the table's column order (a test compares it with a read).
    const params = insertParams(message, now);
    const { changes, lastInsertRowid } = this.insertNew.run(params);
    if (changes !== 1) return undefined;
    return {
      id: Number(lastInsertRowid),
      company_id: params.company_id,
      channel_id: params.channel_id,
      conversation_id: params.conversation_id,
      contact_id: params.contact_id,
      external_id: params.external_id,
      replied_to_id: params.replied_to_id,
      income: params.income,
      status: params.status,
      text: params.text,
      reactions: '[]',
      details: params.details,
      delivery: 0,
      deleted: 0,
      send_to_crm: params.send_to_crm,
      created_at: params.created_at,
      external_created_at: params.external_created_at,
    };
  }

  /** The message a provider id names on a channel (statuses, reactions, edits). */
  findByChannelExternalId(channelId: number, externalId: string): MessageRow | undefined {
    return this.byChannelExternalId.get(channelId, externalId);
  }

  /** Moves a message's status if it is still `from` (a concurrent move is never overwritten); undefined otherwise. */
  moveStatus(id: number, from: MessageStatus, to: MessageStatus, details: unknown): MessageRow | undefined {
    return this.compareAndSetStatus.get(
      to,
      details === null || details === undefined ? null : JSON.stringify(details),
      id,
      from,
    );
  }

  setReactions(id: number, reactions: readonly unknown[]): MessageRow {
    return this.updateReactions.get(JSON.stringify(reactions), id)!;
  }

  /** Replaces the text (a provider-side edit) and details. */
  setText(id: number, text: string | null, details: unknown): MessageRow {
    return this.updateText.get(text, details === null || details === undefined ? null : JSON.stringify(details), id)!;
  }

  /** A message by its id alone (the sender's outcome names the message of its job). */
  findById(id: number): MessageRow | undefined {
    return this.byIdOnly.get(id);
  }

  /**
   * An outgoing message the provider took: its provider id and status `sent`, if it still waits for
   * its id; undefined otherwise, or when the channel already has a message with that id.
   */
  /** Marks a message deleted; undefined when it already was. */
  markDeleted(id: number): MessageRow | undefined {
    return this.markDeletedOne.get(id);
  }

  recordSent(id: number, externalId: string): MessageRow | undefined {
    return this.markSent.get(externalId, id);
  }

  /** The conversation's latest incoming message the provider named (what a read receipt points at). */
  lastIncoming(conversationId: number): MessageRow | undefined {
    return this.lastIncomingOne.get(conversationId);
  }

  find(conversationId: number, id: number): MessageRow | undefined {
    return this.byId.get(conversationId, id);
  }

  findByExternalId(conversationId: number, externalId: string): MessageRow | undefined {
    return this.byExternalId.get(conversationId, externalId);
  }

  /** A page of a conversation's messages in the order they happened at the provider. */
  list(conversationId: number, { limit, offset }: PageWindow): { rows: MessageRow[]; total: number } {
    return {
      rows: this.page.all(conversationId, limit, offset),
      total: this.countInConversation.get(conversationId)!.n,
    };
  }
}

/** The named parameters of both insert statements. */
function insertParams(message: NewMessage, now: number) {
  return {
    company_id: message.companyId,
    channel_id: message.channelId,
    conversation_id: message.conversationId,
    contact_id: message.contactId,
    external_id: message.externalId,
    replied_to_id: message.repliedToId,
    income: Number(message.income),
    status: message.status,
    text: message.text,
    details: message.details === null || message.details === undefined ? null : JSON.stringify(message.details),
    send_to_crm: Number(message.sendToCrm),
    created_at: now,
    external_created_at: message.externalCreatedAt ?? now,
  };
}
