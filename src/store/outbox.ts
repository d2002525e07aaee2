import type { Db } from './db.js';
import type { GroupCommit } from './group-commit.js';
import { pruneStep, type PruneStep } from './prune.js';
import { traceparentOf } from '../tracing/tracer.js';

export type StreamName = 'gateway.events' | 'gateway.outbound';

export interface OutboxRow {
  id: number;
  stream: StreamName;
  key: string;
  message_id: string;
  payload: string;
  created_at: number;
  published_at: number | null;
  /** The trace context of the change that appended it (docs/tracing.md); null while tracing is off. */
  traceparent: string | null;
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

/**
 * What publishes outbox rows inside a group commit (the relay on the embedded streams), see
 * OutboxStore.publishInCommits.
 */
export interface CommitPublisher {
  /** Most pending rows of the table taken in one commit. */
  batchSize: number;
  /**
   * Publishes, in the open transaction, `pending` (rows of the table, in id order: marks them) and
   * then `appended` (this transaction's rows, written already published); answers what to run
   * once it committed.
   */
  publish: (pending: readonly PendingRow[], appended: readonly PendingRow[]) => (() => void) | undefined;
  /** Its publish failed (its writes were undone, the rows are pending) or the transaction did. */
  onError: (error: unknown) => void;
}

/** Appended rows kept in memory for the relay, at most (a relay that fell behind reads the rest). */
const FRESH_ROWS = 4_096;

/**
 * The transactional outbox. `append` is called inside the transaction of the change it reports;
 * the relay reads pending rows in id order and marks them once the stream acknowledged them.
 */
export class OutboxStore {
  private readonly insertOne;
  private readonly markOne;
  private readonly oldestPending;
  /** Who waits for the next append (the relay loop): called once, then dropped. */
  private readonly appendWaiters = new Set<() => void>();
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
  private readonly insertPublished;
  private readonly reopenOne;
  private readonly nextRows;
  private readonly deletePublished;
  /** publishInCommits is on: appends in group-commit units are written published, kept in `inCommit`. */
  private publishingInCommits = false;
  /** Rows the units of the group transaction running now appended, for its publisher. */
  private inCommit: PendingRow[] = [];

  constructor(
    db: Db,
    private readonly group: GroupCommit,
  ) {
    this.insertOne = db.prepare<[string, string, string, string, number, string | null]>(
      'INSERT INTO outbox (stream, key, message_id, payload, created_at, traceparent) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.pendingIds = db.prepare<[number], { id: number; message_id: string }>('SELECT id, message_id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ?');
    this.byId = db.prepare<[number], OutboxRow>('SELECT * FROM outbox WHERE id = ?');
    this.insertPublished = db.prepare<[string, string, string, string, number, number, string | null]>(
      'INSERT INTO outbox (stream, key, message_id, payload, created_at, published_at, traceparent) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.reopenOne = db.prepare<[number]>('UPDATE outbox SET published_at = NULL WHERE id = ?');
    this.nextRows = db.prepare<[number, number], { key: number; created_at: number }>('SELECT id AS key, created_at FROM outbox WHERE id > ? ORDER BY id LIMIT ?');
    this.deletePublished = db.prepare<[number, number]>('DELETE FROM outbox WHERE id > ? AND id <= ? AND published_at IS NOT NULL');
    this.markOne = db.prepare<[number, number]>('UPDATE outbox SET published_at = ? WHERE id = ? AND published_at IS NULL');
    this.oldestPending = db.prepare<[], { n: number; oldest: number | null }>(
      'SELECT count(*) AS n, min(created_at) AS oldest FROM outbox WHERE published_at IS NULL',
    );
  }

  /**
   * Appends a row; `message.payload` must not change afterwards (the relay may publish it as given).
   * In a group-commit unit while publishInCommits is on, the row is written already published and
   * its publisher publishes it before that transaction commits. The row keeps the trace context
   * active now (the request or consumer span whose change it reports), the next hop's parent.
   */
  append(message: NewOutboxMessage, now = Date.now()): void {
    const payload = JSON.stringify(message.payload);
    const traceparent = traceparentOf() ?? null;
    if (this.publishingInCommits && this.group.inUnits) {
      const id = Number(this.insertPublished.run(message.stream, message.key, message.messageId, payload, now, now, traceparent).lastInsertRowid);
      this.inCommit.push({ id, stream: message.stream, key: message.key, message_id: message.messageId, payload, created_at: now, published_at: now, traceparent, parsed: message.payload });
      return;
    }
    const id = Number(this.insertOne.run(message.stream, message.key, message.messageId, payload, now, traceparent).lastInsertRowid);
    if (this.fresh.size < FRESH_ROWS) {
      this.fresh.set(id, { id, stream: message.stream, key: message.key, message_id: message.messageId, payload, created_at: now, published_at: null, traceparent, parsed: message.payload });
    }
    this.pendingAdded();
  }

  /**
   * Publishes in every group commit (embedded streams, where publishing is a write of the same
   * store): at the end of each group transaction, `publisher` gets the pending rows of the table
   * (at most a batch) and the rows its units appended. Those are written already published and kept
   * in memory: no UPDATE to mark them, no entry in the pending index, no read back. They follow
   * the units' savepoints (a unit that fails drops its rows from the list as SQLite drops them from
   * the table), and if the publisher fails they are made pending again in the same transaction, so
   * the state change and its events still commit together and the relay's loop publishes them.
   * Answers how to turn it off.
   */
  publishInCommits(publisher: CommitPublisher): () => void {
    this.publishingInCommits = true;
    let taken: PendingRow[] = [];
    const untrack = this.group.track({ mark: () => this.inCommit.length, undo: (mark) => void (this.inCommit.length = mark) });
    const removeHook = this.group.beforeCommit({
      run: () => {
        taken = this.inCommit;
        this.inCommit = [];
        const pending = this.pendingHere(publisher.batchSize, true);
        // More rows wait than one batch: this transaction's go behind them, pending, in id order.
        const behind = pending.length === publisher.batchSize;
        if (behind) this.reopen(taken);
        return publisher.publish(pending, behind ? [] : taken);
      },
      // The publisher's writes were undone (the reopen of a backlog too): the rows are made pending.
      recover: () => this.reopen(taken),
      onError: (error) => {
        this.inCommit = [];
        this.relayFailed();
        publisher.onError(error);
      },
    });
    return () => {
      removeHook();
      untrack();
      this.publishingInCommits = false;
      this.inCommit = [];
    };
  }

  /** Rows written published whose publishing did not happen: pending again, for the relay. */
  private reopen(rows: readonly PendingRow[]): void {
    for (const row of rows) {
      this.reopenOne.run(row.id);
      if (this.fresh.size < FRESH_ROWS) this.fresh.set(row.id, { ...row, published_at: null });
    }
    if (rows.length > 0) this.pendingAdded();
  }

  /** A pending row was written: the relay reads the table again, and a waiting relay loop wakes. */
  private pendingAdded(): void {
    this.appendedSinceRelay = true;
    // Transactions are synchronous: by the next turn of the event loop this row is committed (or
    // rolled back, and the relay finds nothing: a wake for nothing is harmless). A relay that ran in
    // that transaction's commit (a group commit's hook) took it already: no wake then.
    if (this.appendWaiters.size > 0 && !this.wakeScheduled) {
      this.wakeScheduled = true;
      setImmediate(() => {
        this.wakeScheduled = false;
        if (!this.appendedSinceRelay) return;
        const waiters = [...this.appendWaiters];
        this.appendWaiters.clear();
        for (const wakeUp of waiters) wakeUp();
      });
    }
  }

  /**
   * Pending rows in id order, for the relay: rows appended in this process come with their payload as given.
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

  /**
   * Calls `wakeUp` once, soon after the next append committed: the relay waits for it instead of
   * polling. Answers the unsubscribe, for a wait that ended otherwise.
   */
  whenAppended(wakeUp: () => void): () => void {
    this.appendWaiters.add(wakeUp);
    return () => this.appendWaiters.delete(wakeUp);
  }

  /** How many wait for the next append (a wait that ended leaves none behind). */
  get appendWaiting(): number {
    return this.appendWaiters.size;
  }

  /** Whether any row waits (read from the pending index alone, no payload). */
  hasPending(): boolean {
    return this.pendingIds.get(1) !== undefined;
  }

  /** Marks rows published, in the caller's transaction (a group-commit unit is one) if there is one. */
  markPublishedHere(ids: readonly number[], now: number): void {
    for (const id of ids) {
      this.markOne.run(now, id);
      this.fresh.delete(id);
    }
  }

  /**
   * Deletes the published rows created before `before` among the `limit` rows after id `after`,
   * in id order, up to the first row created since (ids follow creation time, so the scan stops
   * there instead of reading the whole table). Pending rows stay, however old. Answers the last id
   * looked at, to go on from (null: no row after `after` is old enough), and how many went.
   */
  prunePublished(before: number, after: number, limit: number): PruneStep {
    return pruneStep(this.nextRows.all(after, limit), before, after, (from, upto) => this.deletePublished.run(from, upto).changes);
  }

  /** Rows not yet published and the creation time of the oldest (relay lag). */
  lag(): { pending: number; oldestCreatedAt: number | null } {
    const row = this.oldestPending.get()!;
    return { pending: row.n, oldestCreatedAt: row.oldest };
  }
}
