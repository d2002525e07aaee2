import type { Db } from '../engine/db.js';

/** One batch of expired messages deleted: how many, and the files whose bytes are to be deleted. */
export interface ExpiredBatch {
  deleted: number;
  storageKeys: string[];
}

/**
 * The SQL of the retention of messages (docs/decisions.md, "Data lifecycle"): which companies keep
 * messages for how long, and the deletion of a company's oldest expired messages in batches with
 * their attachment rows. The conversations stay; their last message is recomputed from what remains.
 */
export class MessageRetentionStore {
  private readonly companies;
  private readonly expired;
  private readonly keysOf;
  private readonly deleteAttachments;
  private readonly deleteMessages;
  private readonly relinkConversations;

  constructor(db: Db) {
    this.companies = db.prepare<{ days: number | null }, { id: number; days: number }>(
      `SELECT id, coalesce(message_retention_days, @days) AS days FROM companies
       WHERE coalesce(message_retention_days, @days) IS NOT NULL ORDER BY id`,
    );
    this.expired = db.prepare<[number, number, number], { id: number; conversation_id: number }>(
      'SELECT id, conversation_id FROM messages WHERE company_id = ? AND created_at < ? ORDER BY created_at LIMIT ?',
    );
    this.keysOf = db.prepare<[string], { storage_key: string }>(
      'SELECT storage_key FROM attachments WHERE message_id IN (SELECT value FROM json_each(?))',
    );
    this.deleteAttachments = db.prepare<[string]>(
      'DELETE FROM attachments WHERE message_id IN (SELECT value FROM json_each(?))',
    );
    // v1 jobs of the messages follow by ON DELETE CASCADE.
    this.deleteMessages = db.prepare<[string]>('DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))');
    this.relinkConversations = db.prepare<[string]>(
      `UPDATE conversations SET last_message_id =
         (SELECT id FROM messages m WHERE m.conversation_id = conversations.id ORDER BY m.external_created_at DESC, m.id DESC LIMIT 1)
       WHERE id IN (SELECT value FROM json_each(?))`,
    );
  }

  /** Every company whose messages expire, with its period in days (its own, else `defaultDays`). */
  companiesWithRetention(defaultDays: number | null): { id: number; days: number }[] {
    return this.companies.all({ days: defaultDays });
  }

  /** Deletes up to `limit` of the company's messages created before `before`, oldest first, in the caller's transaction. */
  deleteExpired(companyId: number, before: number, limit: number): ExpiredBatch {
    const rows = this.expired.all(companyId, before, limit);
    if (rows.length === 0) return { deleted: 0, storageKeys: [] };
    const ids = JSON.stringify(rows.map((r) => r.id));
    const storageKeys = this.keysOf.all(ids).map((a) => a.storage_key);
    this.deleteAttachments.run(ids);
    this.deleteMessages.run(ids);
    this.relinkConversations.run(JSON.stringify([...new Set(rows.map((r) => r.conversation_id))]));
    return { deleted: rows.length, storageKeys };
  }
}
