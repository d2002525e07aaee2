import type { Db } from './db.js';

export type StreamName = 'gateway.events' | 'gateway.outbound';

export interface OutboxRow {
  id: number;
  stream: StreamName;
  key: string;
  message_id: string;
  payload: string;
  created_at: number;
  published_at: number | null;
}

export interface NewOutboxMessage {
  stream: StreamName;
  key: string;
  /** Stable id of the message (the event id): duplicates after a crash carry the same one. */
  messageId: string;
  payload: unknown;
}

/** A pending row, with its payload already parsed when it was appended in this process. */
export type PendingRow = OutboxRow & { parsed?: unknown };

/** Appended rows kept in memory for the relay, at most (a relay that fell behind reads the rest). */
const FRESH_ROWS = 4_096;

/**
 * The transactional outbox. `append` is called inside the transaction of the change it reports;
 * the relay reads pending rows in id order and marks them once the stream acknowledged them.
 */
export class OutboxStore {
  private readonly insertOne;
  private readonly pendingRows;
  private readonly markOne;
  private readonly oldestPending;
  private readonly markAll;
  /** The relay's wait for the next append (one shared promise, however many waits raced it). */
  private next: { promise: Promise<void>; resolve: () => void } | null = null;
  private wakeScheduled = false;
  /**
   * Rows may have been appended since the relay last found none pending (true at start: rows of an
   * earlier run may wait). Lets a relay that runs at every commit skip its read when nothing came.
   */
  private appendedSinceRelay = true;
  /**
   * Rows appended on this connection and not relayed yet, with their payload as given: the relay in
   * a commit (its hook) takes them from here instead of reading them back and parsing them. The
   * store stays the truth: only a row still pending with the same id and message id is taken from
   * here (a rolled-back append leaves an entry that matches nothing, dropped at the next full read).
   */
  private readonly fresh = new Map<number, PendingRow>();
  private readonly pendingIds;
  private readonly byId;

  constructor(db: Db) {
    this.insertOne = db.prepare<[string, string, string, string, number]>(
      'INSERT INTO outbox (stream, key, message_id, payload, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.pendingRows = db.prepare<[number], OutboxRow>('SELECT * FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ?');
    this.pendingIds = db.prepare<[number], { id: number; message_id: string }>('SELECT id, message_id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ?');
    this.byId = db.prepare<[number], OutboxRow>('SELECT * FROM outbox WHERE id = ?');
    this.markOne = db.prepare<[number, number]>('UPDATE outbox SET published_at = ? WHERE id = ? AND published_at IS NULL');
    this.markAll = db.transaction((ids: readonly number[], now: number) => this.markPublishedHere(ids, now));
    this.oldestPending = db.prepare<[], { n: number; oldest: number | null }>(
      'SELECT count(*) AS n, min(created_at) AS oldest FROM outbox WHERE published_at IS NULL',
    );
  }

  /** Appends a row; `message.payload` must not change afterwards (the relay may publish it as given). */
  append(message: NewOutboxMessage, now = Date.now()): void {
    const payload = JSON.stringify(message.payload);
    const id = Number(this.insertOne.run(message.stream, message.key, message.messageId, payload, now).lastInsertRowid);
    if (this.fresh.size < FRESH_ROWS) {
      this.fresh.set(id, { id, stream: message.stream, key: message.key, message_id: message.messageId, payload, created_at: now, published_at: null, parsed: message.payload });
    }
    this.appendedSinceRelay = true;
    // Transactions are synchronous: by the next turn of the event loop this row is committed (or
    // rolled back, and the relay finds nothing: a wake for nothing is harmless). A relay that ran in
    // that transaction's commit (a group commit's hook) took it already: no wake then.
    if (this.next !== null && !this.wakeScheduled) {
      this.wakeScheduled = true;
      setImmediate(() => {
        this.wakeScheduled = false;
        if (!this.appendedSinceRelay) return;
        const next = this.next;
        this.next = null;
        next?.resolve();
      });
    }
  }

  /**
   * pending() for the relay: rows appended in this process come with their payload as given.
   * `sinceAppend` (a relay run at every commit): nothing, without a read, when no row was appended
   * since the last full read.
   */
  pendingHere(limit: number, sinceAppend = false): PendingRow[] {
    if (sinceAppend && !this.appendedSinceRelay) return [];
    const rows = this.pendingIds.all(limit).map(({ id, message_id }) => {
      const fresh = this.fresh.get(id);
      return fresh?.message_id === message_id ? fresh : this.byId.get(id)!;
    });
    if (rows.length < limit) {
      // Every pending row was read: what else is kept here was rolled back.
      this.appendedSinceRelay = false;
      this.fresh.clear();
    }
    return rows;
  }

  /** The relay's transaction failed: what it took is pending again, and the next relay reads it. */
  relayFailed(): void {
    this.appendedSinceRelay = true;
  }

  /** Resolves soon after the next append committed: the relay waits on it instead of polling. */
  appended(): Promise<void> {
    if (this.next === null) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.next = { promise, resolve };
    }
    return this.next.promise;
  }

  pending(limit: number): OutboxRow[] {
    return this.pendingRows.all(limit);
  }

  markPublished(ids: readonly number[], now = Date.now()): void {
    this.markAll(ids, now);
  }

  /** markPublished in the caller's transaction, without a savepoint of its own. */
  markPublishedHere(ids: readonly number[], now: number): void {
    for (const id of ids) {
      this.markOne.run(now, id);
      this.fresh.delete(id);
    }
  }

  /** Rows not yet published and the creation time of the oldest (relay lag). */
  lag(): { pending: number; oldestCreatedAt: number | null } {
    const row = this.oldestPending.get()!;
    return { pending: row.n, oldestCreatedAt: row.oldest };
  }
}
