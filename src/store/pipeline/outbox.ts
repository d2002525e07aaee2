import type { Db } from '../engine/db.js';
import type { GroupCommit } from '../engine/group-commit.js';
import { pruneStep, type PruneStep } from '../engine/prune.js';
import { traceparentOf } from '../../tracing/tracer.js';
import type { CompanyEventLog } from './company-event-log.js';
import type { CommitPublisher, InCommitRow, NewOutboxMessage, OutboxRow, PendingRow, RelayRow } from './outbox-rows.js';

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
  private readonly nextRows;
  private readonly deletePublished;
  /** publishInCommits is on: appends in group-commit units are kept in `inCommit`, not written. */
  private publishingInCommits = false;
  /** Messages the units of the group transaction running now appended, for its publisher. */
  private inCommit: InCommitRow[] = [];
  /** Who hears of every publish once it committed (see onPublished). */
  private readonly publishedListeners = new Set<(rows: readonly RelayRow[]) => void>();

  constructor(
    db: Db,
    private readonly group: GroupCommit,
    private readonly eventLog: CompanyEventLog,
  ) {
    this.insertOne = db.prepare<[string, string, string, string, number, string | null]>(
      'INSERT INTO outbox (stream, key, message_id, payload, created_at, traceparent) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.pendingIds = db.prepare<[number], { id: number; message_id: string }>(
      'SELECT id, message_id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ?',
    );
    this.byId = db.prepare<[number], OutboxRow>('SELECT * FROM outbox WHERE id = ?');
    this.nextRows = db.prepare<[number, number], { key: number; created_at: number }>(
      'SELECT id AS key, created_at FROM outbox WHERE id > ? ORDER BY id LIMIT ?',
    );
    this.deletePublished = db.prepare<[number, number]>(
      'DELETE FROM outbox WHERE id > ? AND id <= ? AND published_at IS NOT NULL',
    );
    this.markOne = db.prepare<[number, number]>(
      'UPDATE outbox SET published_at = ? WHERE id = ? AND published_at IS NULL',
    );
    this.oldestPending = db.prepare<[], { n: number; oldest: number | null }>(
      'SELECT count(*) AS n, min(created_at) AS oldest FROM outbox WHERE published_at IS NULL',
    );
  }

  /**
   * Appends a message; `message.payload` must not change afterwards (the relay may publish it as
   * given). In a group-commit unit while publishInCommits is on, it is kept in memory and its
   * publisher publishes it before that transaction commits: no row (see publishInCommits).
   * Otherwise it is a pending row. It keeps the trace context active now (the request or consumer
   * span whose change it reports), the next hop's parent.
   */
  append(message: NewOutboxMessage, now = Date.now()): void {
    if (message.logged !== undefined) this.eventLog.appendHere(message.messageId, message.logged, now);
    const payload = message.json ?? JSON.stringify(message.payload);
    const traceparent = traceparentOf() ?? null;
    const row: InCommitRow = {
      id: null,
      stream: message.stream,
      key: message.key,
      message_id: message.messageId,
      payload,
      created_at: now,
      traceparent,
      parsed: message.payload,
    };
    if (this.publishingInCommits && this.group.inUnits) this.inCommit.push(row);
    else this.insertPending([row]);
  }

  /** Writes the messages as pending rows, for the relay's loop (kept in memory for it too). */
  private insertPending(rows: readonly InCommitRow[]): void {
    for (const row of rows) {
      const id = Number(
        this.insertOne.run(row.stream, row.key, row.message_id, row.payload, row.created_at, row.traceparent)
          .lastInsertRowid,
      );
      if (this.fresh.size >= FRESH_ROWS) continue;
      // Written out field by field, one object shape for every row: each Kafka-mode append comes here (docs/decisions.md, "Object shapes").
      const { stream, key, message_id, payload, created_at, traceparent, parsed } = row;
      this.fresh.set(id, { id, stream, key, message_id, payload, created_at, published_at: null, traceparent, parsed });
    }
    if (rows.length > 0) this.pendingAdded();
  }

  /**
   * Publishes in every group commit (embedded streams, where publishing is a write of the same
   * store): at the end of each group transaction, `publisher` gets the pending rows of the table
   * (at most a batch) and the messages its units appended. Those are never written to the table:
   * what the publisher writes for them (deliveries, stream messages) commits with the change they
   * report, so a row would only wait for the janitor to delete it. They follow the units'
   * savepoints (a unit that fails drops its messages from the list as SQLite drops its rows), and
   * when the publisher fails, or a backlog of pending rows must go first, they are written as
   * pending rows in the same transaction: the state change and its events still commit together
   * and the relay's loop publishes them. Answers how to turn it off.
   */
  publishInCommits(publisher: CommitPublisher): () => void {
    this.publishingInCommits = true;
    let taken: InCommitRow[] = [];
    const untrack = this.group.track({
      mark: () => this.inCommit.length,
      undo: (mark) => void (this.inCommit.length = mark),
    });
    const removeHook = this.group.beforeCommit({
      run: () => {
        taken = this.inCommit;
        this.inCommit = [];
        const pending = this.pendingHere(publisher.batchSize, true);
        // More rows wait than one batch: this transaction's go behind them, pending, in id order.
        const behind = pending.length === publisher.batchSize;
        if (behind) this.insertPending(taken);
        return publisher.publish(pending, behind ? [] : taken);
      },
      // The publisher's writes were undone (the pending rows of a backlog too): they are written pending.
      recover: () => this.insertPending(taken),
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

  /**
   * Calls `listener` with the messages of every publish once it committed, in the order they were
   * published: the one view of every message the outbox took, those published in the commit that
   * appended them included (they leave no row). Answers the unsubscribe.
   */
  onPublished(listener: (rows: readonly RelayRow[]) => void): () => void {
    this.publishedListeners.add(listener);
    return () => this.publishedListeners.delete(listener);
  }

  /** The relay's publish of these messages committed (and the stream acknowledged them). */
  published(rows: readonly RelayRow[]): void {
    for (const listener of this.publishedListeners) listener(rows);
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
    return pruneStep(
      this.nextRows.all(after, limit),
      before,
      after,
      (from, upto) => this.deletePublished.run(from, upto).changes,
    );
  }

  /** Rows not yet published and the creation time of the oldest (relay lag). */
  lag(): { pending: number; oldestCreatedAt: number | null } {
    const row = this.oldestPending.get()!;
    return { pending: row.n, oldestCreatedAt: row.oldest };
  }
}
