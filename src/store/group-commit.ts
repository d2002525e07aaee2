import type { Db } from './db.js';

interface Job {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: units of work queued in the same turn of the event loop run one after the other in
 * ONE SQLite transaction, each inside its own savepoint, and every caller's promise settles only
 * after that transaction committed. A unit that throws rolls back its own savepoint and rejects its
 * own caller; the others still commit. A failed COMMIT rejects them all (nothing was written).
 *
 * Why: a commit costs far more than the few statements of one provider callback (the WAL pages of
 * every table and index touched are written on each commit), so one commit for every callback that
 * arrived meanwhile raises throughput without loosening anything a caller relies on: each unit is
 * atomic, and durable (synchronous=NORMAL in WAL, as for every transaction) before its promise
 * resolves.
 */
export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;
  private readonly begin;
  private readonly commit;
  private readonly rollback;
  /** A savepoint around one unit (better-sqlite3 nests a transaction function as a savepoint). */
  private readonly unit: (fn: () => unknown) => unknown;

  constructor(
    private readonly db: Db,
    /** Most units in one transaction. */
    private readonly maxBatch = 256,
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.unit = db.transaction((fn: () => unknown) => fn());
  }

  /** Runs `fn` in the next group transaction (inside a savepoint); resolves with its result once committed. */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (batch.length === 0) return;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.begin.run();
      for (const job of batch) {
        try {
          // A nested better-sqlite3 transaction is a savepoint: a throw undoes this unit only.
          outcomes.push({ ok: true, value: this.unit(job.fn) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
      this.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      for (const job of batch) job.reject(error);
      return;
    }
    batch.forEach((job, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }
}
