import { transactionRunner, type Db, type TransactionRunner } from './db.js';
import {
  activeContext,
  endSpan,
  isTracing,
  ROOT_CONTEXT,
  runIn,
  withSpan,
  type Context,
  type Span,
} from '../../tracing/tracer.js';
import { startCommitSpan } from './commit-span.js';

interface Job {
  fn: () => unknown;
  /** Runs one statement only, atomic by itself: no savepoint around it. */
  single: boolean;
  /** Somebody waits for it (an HTTP answer): its transaction starts in the next turn, without the gap. */
  urgent: boolean;
  /** Called with the unit's result right after the COMMIT, in unit order, before any promise settles. */
  committed: ((value: unknown) => void) | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** The caller's trace context while tracing is on: the unit runs in it (its outbox rows keep it). */
  trace: Context | undefined;
}

/**
 * Work that ends every group transaction: it runs after the units, in a savepoint of its own, and
 * answers what to do once the transaction committed (or nothing). A hook that throws has its writes
 * undone and its `onError` called; the units still commit.
 */
export interface CommitHook {
  run: () => (() => void) | void;
  /**
   * After `run` threw and its savepoint was undone, still in the transaction: leaves the units'
   * work the way it would be without the hook (the outbox rows it was to publish, pending again).
   * A throw here fails the whole transaction.
   */
  recover?: () => void;
  onError: (error: unknown) => void;
}

/**
 * Memory that follows the units' savepoints: what a unit (or a Store.transaction inside one, see
 * GroupCommit.guard) added is dropped when its savepoint is undone, as its rows are.
 */
export interface UnitMemory {
  /** Where it stands now. */
  mark(): number;
  /** Drops what was added since `mark`. */
  undo(mark: number): void;
}

/**
 * Group commit: units of work queued meanwhile (in the same turn of the event loop, or under load
 * within `minGapMs` of the last commit) run one after the other in ONE SQLite transaction, each
 * inside its own savepoint, and every caller's promise settles only after that transaction
 * committed. A unit that throws rolls back its own savepoint and rejects its
 * own caller; the others still commit. A failed COMMIT rejects them all (nothing was written).
 *
 * An urgent unit (`runUrgent`: a provider callback, whose HTTP answer waits for the commit) starts
 * its transaction in the next turn whatever the gap, and takes every unit queued so far with it.
 * The gap saves commits where the work queues itself (attempt records and stream commits of a
 * bulk replay); where the units come from clients waiting for their answers, each client sends its
 * next request only once answered, so the loop would spend the gap idle (measured with the gap at
 * 1 ms for callbacks too: the machine was 44 % idle at maximum rate).
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
  /** The pending flush while it waits for the gap (urgent units cut it short). */
  private gapTimer: NodeJS.Timeout | undefined;
  /** When the last transaction ended (performance.now()). */
  private lastCommitAt = -Infinity;
  private readonly begin;
  private readonly commit;
  private readonly rollback;
  /** A savepoint around one unit (better-sqlite3 nests a transaction function as a savepoint). */
  private readonly unit: TransactionRunner;
  private readonly hooks = new Set<CommitHook>();
  private readonly memories = new Set<UnitMemory>();
  private runningUnits = false;

  constructor(
    private readonly db: Db,
    /** Most units in one transaction. */
    private readonly maxBatch = 256,
    /**
     * Least time between two transactions. A COMMIT costs about as much as the units of a few
     * callbacks (it writes every page they touched, and now and then a WAL checkpoint), so under load
     * units queue for up to this long and share one; an idle store commits in the next turn.
     */
    private readonly minGapMs = 1,
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.unit = transactionRunner(db);
  }

  /**
   * Runs `fn` in the next group transaction (inside a savepoint); resolves with its result once
   * committed. `committed`, if given, gets that result synchronously right after the COMMIT, in the
   * order of the units (what must follow the commit in order, such as handing out stream messages).
   */
  run<T>(fn: () => T, committed?: (value: T) => void): Promise<T> {
    return this.enqueue(fn, false, false, committed);
  }

  /** `run` for a unit somebody waits for: its transaction starts in the next turn, without the gap. */
  runUrgent<T>(fn: () => T): Promise<T> {
    return this.enqueue(fn, false, true);
  }

  /**
   * `run` for a unit of ONE statement: a statement is atomic by itself (SQLite undoes a failed one
   * alone), so it needs no savepoint, which costs about what a small statement does.
   */
  runStatement<T>(fn: () => T): Promise<T> {
    return this.enqueue(fn, true, false);
  }

  /**
   * Adds a hook run at the end of every group transaction (see CommitHook), such as the outbox relay
   * of embedded streams: the events the units wrote go out in the same commit. Answers its removal.
   */
  beforeCommit(hook: CommitHook): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  /** Adds memory that follows the units' savepoints (see UnitMemory); answers its removal. */
  track(memory: UnitMemory): () => void {
    this.memories.add(memory);
    return () => this.memories.delete(memory);
  }

  /** True while the units of a group transaction run (not its hooks). */
  get inUnits(): boolean {
    return this.runningUnits;
  }

  /**
   * Runs `fn` (a unit, or a savepoint nested in one) so that, if it throws, the tracked memory drops
   * what it added, as SQLite drops its rows, even when the unit catches the error and goes on.
   */
  guard<T>(fn: () => T): T {
    if (!this.runningUnits || this.memories.size === 0) return fn();
    const marks = this.marks();
    try {
      return fn();
    } catch (error) {
      this.undo(marks);
      throw error;
    }
  }

  private marks(): number[] {
    return [...this.memories].map((memory) => memory.mark());
  }

  private undo(marks: readonly number[]): void {
    [...this.memories].forEach((memory, index) => memory.undo(marks[index]!));
  }

  private runUnit(job: Job): unknown {
    return this.guard(() => (job.single ? job.fn() : this.unit(job.fn)));
  }

  /** Runs the hooks at the end of the transaction; collects what each wants run once it committed. */
  private runHooks(afterHooks: { hook: CommitHook; after: () => void }[]): void {
    for (const hook of this.hooks) {
      try {
        const after = this.unit(hook.run) as (() => void) | undefined;
        if (after !== undefined) afterHooks.push({ hook, after });
      } catch (error) {
        hook.onError(error);
        hook.recover?.();
      }
    }
  }

  private enqueue<T>(fn: () => T, single: boolean, urgent: boolean, committed?: (value: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        fn,
        single,
        urgent,
        committed: committed as ((value: unknown) => void) | undefined,
        resolve: resolve as (value: unknown) => void,
        reject,
        trace: isTracing() ? activeContext() : undefined,
      });
      // An urgent unit queued behind the gap cuts it short: the transaction starts in the next turn.
      if (!this.scheduled || (urgent && this.gapTimer !== undefined)) this.schedule(urgent);
    });
  }

  private schedule(urgent: boolean): void {
    this.scheduled = true;
    clearTimeout(this.gapTimer);
    this.gapTimer = undefined;
    const wait = urgent ? 0 : this.lastCommitAt + this.minGapMs - performance.now();
    // Tracing on: the flush runs in no caller's context (timers keep the context they were set in);
    // each unit runs in its own caller's.
    const flush = isTracing() ? () => runIn(ROOT_CONTEXT, () => this.flush()) : () => this.flush();
    if (wait > 0) this.gapTimer = setTimeout(flush, wait);
    else setImmediate(flush);
  }

  private flush(): void {
    this.gapTimer = undefined;
    const batch = this.queue.splice(0, this.maxBatch);
    if (batch.length === 0) {
      this.scheduled = false;
      return;
    }
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    const afterHooks: { hook: CommitHook; after: () => void }[] = [];
    // Tracing on: the transaction's span (docs/tracing.md), linked with its callers' spans.
    const span: Span | undefined = isTracing() ? startCommitSpan(batch.map((job) => job.trace)) : undefined;
    try {
      this.begin.run();
      this.runningUnits = true;
      for (const job of batch) {
        try {
          // A nested better-sqlite3 transaction is a savepoint: a throw undoes this unit only (and
          // what it added to the tracked memory).
          outcomes.push({
            ok: true,
            value: job.trace === undefined ? this.runUnit(job) : runIn(job.trace, () => this.runUnit(job)),
          });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
      this.runningUnits = false;
      if (span === undefined) this.runHooks(afterHooks);
      else runIn(withSpan(span), () => this.runHooks(afterHooks));
      this.commit.run();
      span?.end();
    } catch (error) {
      this.runningUnits = false;
      if (span !== undefined) endSpan(span, error);
      if (this.db.inTransaction) this.rollback.run();
      for (const job of batch) job.reject(error);
      for (const hook of this.hooks) hook.onError(error);
      return;
    } finally {
      this.lastCommitAt = performance.now();
      // Units queued past maxBatch, or by the units themselves, go in the next transaction.
      this.scheduled = false;
      if (this.queue.length > 0) this.schedule(this.queue.some((job) => job.urgent));
    }
    // Committed: first what must follow the commit in order (units, then hooks), then the callers.
    // A follow-up that throws is reported to its caller (or hook); the others still run.
    batch.forEach((job, index) => {
      const outcome = outcomes[index]!;
      if (!outcome.ok || job.committed === undefined) return;
      try {
        job.committed(outcome.value);
      } catch (error) {
        outcomes[index] = { ok: false, error };
      }
    });
    for (const { hook, after } of afterHooks) {
      try {
        after();
      } catch (error) {
        hook.onError(error);
      }
    }
    batch.forEach((job, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }
}
