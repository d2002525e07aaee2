import type { Db } from '../engine/db.js';
import type { ContactRow } from './contacts.js';

/** What an erasure removed: the conversations that went, and the files whose bytes are to be deleted. */
export interface ErasedContact {
  conversationIds: number[];
  storageKeys: string[];
  messages: number;
}

/**
 * The SQL of erasing one contact, everywhere its data can be (docs/decisions.md, "Data lifecycle").
 * What marks a kept payload as the contact's is decided above (src/domain/contact-erasure.ts) and
 * given here as `markers`: texts that occur in a row only when the row is about the contact. Runs in
 * the caller's transaction.
 */
export class ContactErasureStore {
  private readonly contact;
  private readonly conversationIds;
  private readonly messageRefs;
  private readonly storageKeys;
  private readonly deleteAttachments;
  private readonly deleteEarlyStatuses;
  private readonly deleteReceipts;
  private readonly deleteContact;
  private readonly deleteOutbox;
  private readonly deleteStreamMessages;
  private readonly deleteLoggedEvents;
  private readonly markedDeliveries;
  private readonly scrubDelivery;
  private readonly scrubAttempts;
  private readonly deleteIdempotent;

  constructor(db: Db) {
    const mentions = (column: string) =>
      `EXISTS (SELECT 1 FROM json_each(@markers) m WHERE m.value <> '' AND instr(${column}, m.value) > 0)`;
    this.contact = db.prepare<[number, number], ContactRow>('SELECT * FROM contacts WHERE company_id = ? AND id = ?');
    this.conversationIds = db.prepare<[number], { id: number }>(
      'SELECT id FROM conversations WHERE contact_id = ? ORDER BY id',
    );
    this.messageRefs = db.prepare<[number], { id: number; external_id: string | null }>(
      'SELECT id, external_id FROM messages WHERE contact_id = ?',
    );
    this.storageKeys = db.prepare<[number], { storage_key: string }>(
      'SELECT storage_key FROM attachments WHERE message_id IN (SELECT id FROM messages WHERE contact_id = ?)',
    );
    this.deleteAttachments = db.prepare<[number]>(
      'DELETE FROM attachments WHERE message_id IN (SELECT id FROM messages WHERE contact_id = ?)',
    );
    this.deleteEarlyStatuses = db.prepare<[number, string]>(
      'DELETE FROM early_statuses WHERE channel_id = ? AND external_id IN (SELECT value FROM json_each(?))',
    );
    this.deleteReceipts = db.prepare<{ channel: number; markers: string }>(
      `DELETE FROM callback_receipts WHERE channel_id = @channel AND ${mentions('key')}`,
    );
    // Conversations, messages and v1 jobs follow by ON DELETE CASCADE.
    this.deleteContact = db.prepare<[number]>('DELETE FROM contacts WHERE id = ?');
    this.deleteOutbox = db.prepare<{ markers: string }>(`DELETE FROM outbox WHERE ${mentions('payload')}`);
    this.deleteStreamMessages = db.prepare<{ markers: string }>(
      `DELETE FROM stream_messages WHERE ${mentions('value')}`,
    );
    this.deleteLoggedEvents = db.prepare<{ company: number; markers: string }>(
      `DELETE FROM company_events WHERE company_id = @company AND ${mentions('envelope')}`,
    );
    this.markedDeliveries = db.prepare<{ company: number; markers: string }, { id: string; event: string }>(
      `SELECT id, event FROM webhook_deliveries WHERE company_id = @company AND ${mentions('event')}`,
    );
    this.scrubDelivery = db.prepare<[string, string]>(
      'UPDATE webhook_deliveries SET event = ?, last_error = NULL WHERE id = ?',
    );
    this.scrubAttempts = db.prepare<[string]>(
      'UPDATE webhook_attempts SET response_body = NULL, error = NULL WHERE delivery_id = ?',
    );
    this.deleteIdempotent = db.prepare<{ markers: string }>(
      `DELETE FROM idempotency_keys WHERE body IS NOT NULL AND ${mentions('body')}`,
    );
  }

  /** The company's contact; another company's id answers undefined, exactly like a missing one. */
  find(companyId: number, contactId: number): ContactRow | undefined {
    return this.contact.get(companyId, contactId);
  }

  /** The provider ids of the contact's messages (markers of its statuses, receipts and payloads). */
  messageExternalIds(contactId: number): string[] {
    return this.messageRefs.all(contactId).flatMap((m) => (m.external_id === null ? [] : [m.external_id]));
  }

  conversationsOf(contactId: number): number[] {
    return this.conversationIds.all(contactId).map((c) => c.id);
  }

  /**
   * Deletes the contact with its conversations, messages, attachment rows, early statuses and
   * callback receipts (a group's participant rows and the member's messages in groups with it), and
   * every kept payload that `markers` find: published or not, outbox rows, embedded stream messages
   * and the live stream's logged events go; deliveries stay (their endpoints' order and the admin history
   * hold them) with their event rewritten by `scrub` and their attempts' bodies and errors cleared.
   */
  erase(contact: ContactRow, markers: readonly string[], scrub: (event: string) => string): ErasedContact {
    const conversationIds = this.conversationsOf(contact.id);
    const externalIds = this.messageExternalIds(contact.id);
    const messages = this.messageRefs.all(contact.id).length;
    const storageKeys = this.storageKeys.all(contact.id).map((a) => a.storage_key);
    const json = JSON.stringify(markers);
    this.deleteAttachments.run(contact.id);
    this.deleteEarlyStatuses.run(contact.channel_id, JSON.stringify(externalIds));
    this.deleteReceipts.run({
      channel: contact.channel_id,
      markers: JSON.stringify([contact.external_id, ...externalIds]),
    });
    this.deleteContact.run(contact.id);
    this.deleteOutbox.run({ markers: json });
    this.deleteStreamMessages.run({ markers: json });
    this.deleteLoggedEvents.run({ company: contact.company_id, markers: json });
    for (const delivery of this.markedDeliveries.all({ company: contact.company_id, markers: json })) {
      this.scrubDelivery.run(scrub(delivery.event), delivery.id);
      this.scrubAttempts.run(delivery.id);
    }
    this.deleteIdempotent.run({ markers: json });
    return { conversationIds, storageKeys, messages };
  }
}
