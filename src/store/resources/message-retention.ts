import type { Db } from '../engine/db.js';

/** One batch of expired messages deleted: how many, and the files whose bytes are to be deleted. */
export interface ExpiredBatch {
  deleted: number;
  storageKeys: string[];
}

/** One step of the walk over a company's deliveries: how many went, and the seq to go on after (null: done). */
export interface DeliveryStep {
  deleted: number;
  nextSeq: number | null;
}

/**
 * The SQL of the retention of messages (docs/decisions.md, "Data lifecycle"): which companies keep
 * messages for how long, and the deletion of a company's oldest expired messages in batches with
 * their attachment rows. The conversations stay; their last message is recomputed from what remains.
 * The company's deliveries created before the same time go too, once they ended (delivered, failed)
 * or while they are held, as the delivery janitor deletes them at GATEWAY_WEBHOOK_RETENTION: their
 * bodies carry the messages. A delivery still retrying stays until it ends.
 */
export class MessageRetentionStore {
  private readonly companies;
  private readonly expired;
  private readonly keysOf;
  private readonly deleteAttachments;
  private readonly deleteMessages;
  private readonly relinkConversations;
  private readonly deliveriesAfter;
  private readonly deleteDeliveries;

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
    this.deliveriesAfter = db.prepare<
      [number, number, number],
      { seq: number; created_at: number; status: string; held_reason: string | null }
    >(
      `SELECT seq, created_at, status, held_reason FROM webhook_deliveries INDEXED BY webhook_deliveries_company
       WHERE company_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    );
    // Their attempts go with them (ON DELETE CASCADE).
    this.deleteDeliveries = db.prepare<[string]>(
      'DELETE FROM webhook_deliveries WHERE seq IN (SELECT value FROM json_each(?))',
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

  /**
   * Deletes, with their attempts, the ended or held deliveries among the company's next `limit`
   * after `afterSeq` (creation order) created before `before`; the walk ends at the first one created
   * at `before` or later. In the caller's transaction.
   */
  deleteExpiredDeliveries(companyId: number, before: number, afterSeq: number, limit: number): DeliveryStep {
    const rows = this.deliveriesAfter.all(companyId, afterSeq, limit);
    const old = rows.filter((r) => r.created_at < before);
    const gone = old.filter((r) => r.status !== 'pending' || r.held_reason !== null).map((r) => r.seq);
    if (gone.length > 0) this.deleteDeliveries.run(JSON.stringify(gone));
    const done = rows.length < limit || old.length < rows.length;
    return { deleted: gone.length, nextSeq: done ? null : rows[rows.length - 1]!.seq };
  }
}
