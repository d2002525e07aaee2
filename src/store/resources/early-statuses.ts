import type { Db } from '../engine/db.js';

export type EarlyStatus = 'sent' | 'delivered' | 'read' | 'error';

export interface EarlyStatusRow {
  channel_id: number;
  external_id: string;
  status: EarlyStatus;
  error: string | null;
  created_at: number;
}

/** Statuses of provider message ids the gateway does not know yet (see migration 006). */
export class EarlyStatusStore {
  private readonly insertOne;
  private readonly forMessage;
  private readonly removeForMessage;
  private readonly removeOlder;

  constructor(db: Db) {
    this.insertOne = db.prepare<[number, string, EarlyStatus, string | null, number]>(
      'INSERT INTO early_statuses (channel_id, external_id, status, error, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.forMessage = db.prepare<[number, string], EarlyStatusRow>(
      'SELECT * FROM early_statuses WHERE channel_id = ? AND external_id = ?',
    );
    this.removeForMessage = db.prepare<[number, string]>(
      'DELETE FROM early_statuses WHERE channel_id = ? AND external_id = ?',
    );
    this.removeOlder = db.prepare<[number]>('DELETE FROM early_statuses WHERE created_at < ?');
  }

  keep(channelId: number, externalId: string, status: EarlyStatus, error: unknown, now = Date.now()): void {
    this.insertOne.run(
      channelId,
      externalId,
      status,
      error === undefined || error === null ? null : JSON.stringify(error),
      now,
    );
  }

  /** The statuses kept for a provider id, removed as they are handed out. */
  take(channelId: number, externalId: string): EarlyStatusRow[] {
    const rows = this.forMessage.all(channelId, externalId);
    if (rows.length > 0) this.removeForMessage.run(channelId, externalId);
    return rows;
  }

  /** Forgets statuses older than `before` (ids of messages sent by other means never get an outcome). */
  prune(before: number): number {
    return this.removeOlder.run(before).changes;
  }
}
