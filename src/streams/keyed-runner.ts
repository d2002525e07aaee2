import { setMaxListeners } from 'node:events';
import { pause, type CommitAfter, type IncomingMessage } from './stream.js';

export interface KeyedRunnerOptions<T extends IncomingMessage> {
  /** May answer `{durable}`: the key goes on at once, and the message is committed once it resolved. */
  handler: (message: T) => Promise<void | CommitAfter>;
  /** Handlers RUNNING at once. Messages queued behind their own key or parked do not count. */
  maxInFlight: number;
  /** Commits a message whose handler resolved. */
  onDone: (message: T) => void | Promise<void>;
  /** Reports a throw of the handler before it is retried in place. */
  onFailed: (message: T, error: unknown) => void;
  /** Reports a message given up after `maxAttempts` throws (see `submit`). */
  onGaveUp?: (message: T, error: unknown) => void;
  /** Reports a commit that threw (the commit alone is retried, never the handler). */
  onCommitFailed?: (message: T, error: unknown, willRetry: boolean) => void;
  /**
   * Parks a message until it may run (Kafka: its not_before), without holding a running slot.
   * Resolves false when the wait was aborted: the message is abandoned uncommitted.
   */
  until?: (message: T, signal: AbortSignal) => Promise<boolean>;
  /**
   * A message that must not run any more although it was handed out (Kafka: fetched before a
   * rebalance, so the partition's current owner gets it again): checked just before it would
   * start, and dropped uncommitted when true.
   */
  stale?: (message: T) => boolean;
  /**
   * Handler calls per message before it is given up and committed. Default: never give up — a
   * handler that throws is infrastructure trouble (a store or broker outage), and giving up would
   * lose the message; it holds back only its own key meanwhile.
   */
  maxAttempts?: number;
  /** Commit calls per message before the commit is given up. Default 10. */
  maxCommitAttempts?: number;
  /** Real-time pause after the nth failure (0-based). Default 250 ms doubling up to 10 s. */
  backoffMs?: (failures: number) => number;
}

interface Lane<T> {
  queue: T[];
  /** The head of the queue is in the handler (it holds a running slot). */
  running: boolean;
  /** The last commit waiting for its handler's side effects (CommitAfter): later commits go after it. */
  committing: Promise<void>;
}

/**
 * Runs handlers with per-key order and a global bound on RUNNING handlers: a message waits only
 * behind earlier messages of its own key. Both stream implementations hand their fetched messages
 * here; `onDone` commits a message once its handler resolved.
 *
 * A message of a key is in one of three states: queued behind earlier messages of its key, parked
 * (`until`, e.g. waiting for its not_before), or running. Only running ones count toward
 * `maxInFlight`, so a key with many queued or parked messages never stops other keys.
 */
export class KeyedRunner<T extends IncomingMessage> {
  private readonly lanes = new Map<string, Lane<T>>();
  private running = 0;
  private held = 0;
  private readonly waiters: (() => void)[] = [];
  private readonly slotWaiters: (() => void)[] = [];
  private readonly releaseWaiters: (() => void)[] = [];
  private stopped = false;
  private draining = false;
  /** Aborted by stop(): everything, running handlers' backoff included. */
  private readonly abort = new AbortController();
  /** Aborted by drain() and stop(): parked waits and retry pauses (nothing new starts). */
  private readonly parking = new AbortController();
  private readonly tasks = new Set<Promise<void>>();
  private readonly maxAttempts: number;
  private readonly maxCommitAttempts: number;
  private readonly backoffMs: (failures: number) => number;

  constructor(private readonly options: KeyedRunnerOptions<T>) {
    // Every parked or pausing message listens on these two signals at once: many listeners are
    // the design here, not a leak (each removes its own when its wait ends).
    setMaxListeners(0, this.abort.signal, this.parking.signal);
    this.maxAttempts = options.maxAttempts ?? Number.POSITIVE_INFINITY;
    this.maxCommitAttempts = options.maxCommitAttempts ?? 10;
    this.backoffMs = options.backoffMs ?? ((failures) => Math.min(250 * 2 ** failures, 10_000));
  }

  /** Handlers running now. */
  get size(): number {
    return this.running;
  }

  /** Keys with messages held. */
  get keys(): number {
    return this.lanes.size;
  }

  /** Messages held (queued, parked or running) and not finished. */
  get holding(): number {
    return this.held;
  }

  get full(): boolean {
    return this.running >= this.options.maxInFlight;
  }

  /** Messages of the key held and not finished (its queue, the running head included). */
  queued(key: string): number {
    return this.lanes.get(key)?.queue.length ?? 0;
  }

  /** Held messages not running (queued behind their key or parked) that match. */
  waitingWhere(match: (message: T) => boolean): number {
    let n = 0;
    for (const lane of this.lanes.values()) {
      lane.queue.forEach((message, index) => {
        if (!(index === 0 && lane.running) && match(message)) n += 1;
      });
    }
    return n;
  }

  /** Resolves when there is room for one more running handler. */
  async room(): Promise<void> {
    while (this.full && !this.stopped) await this.changed();
  }

  /** Resolves when a key is next released: its last held message finished or was abandoned. */
  released(): Promise<void> {
    return new Promise<void>((resolve) => this.releaseWaiters.push(resolve));
  }

  /** Resolves at the next change (a handler started or finished, a message left). */
  changed(): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  submit(message: T): void {
    this.held += 1;
    let lane = this.lanes.get(message.key);
    if (lane !== undefined) {
      lane.queue.push(message);
      return;
    }
    lane = { queue: [message], running: false, committing: Promise.resolve() };
    this.lanes.set(message.key, lane);
    const task = this.work(message.key, lane).finally(() => this.tasks.delete(task));
    this.tasks.add(task);
  }

  private async work(key: string, lane: Lane<T>): Promise<void> {
    try {
      while (lane.queue.length > 0) {
        const message = lane.queue[0]!;
        // Queued or parked messages are left uncommitted once draining or stopped.
        if (this.draining || this.stopped) break;
        if (this.options.until && !(await this.options.until(message, this.parking.signal))) break;
        await this.slot();
        if (this.draining || this.stopped) break;
        if (this.options.stale?.(message)) {
          lane.queue.shift();
          this.held -= 1;
          this.wake();
          continue;
        }
        lane.running = true;
        this.running += 1;
        this.wake();
        let ran: boolean | CommitAfter;
        try {
          ran = await this.run(message);
        } finally {
          lane.running = false;
          this.running -= 1;
          this.slotWaiters.shift()?.();
        }
        if (ran === false) break;
        if (ran === true) {
          // Behind any commit of this key still waiting for its side effects.
          await lane.committing;
          await this.commit(message);
        } else {
          const { durable } = ran;
          const previous = lane.committing;
          const commit = (async () => {
            await previous;
            try {
              await durable;
            } catch {
              return; // left uncommitted: handed out again (the handler reported why)
            }
            await this.commit(message);
          })();
          lane.committing = commit;
          this.tasks.add(commit);
          void commit.finally(() => this.tasks.delete(commit));
        }
        lane.queue.shift();
        this.held -= 1;
        this.wake();
      }
    } finally {
      // What is left in the lane is abandoned (uncommitted): redelivered later.
      this.held -= lane.queue.length;
      lane.queue.length = 0;
      if (this.lanes.get(key) === lane) this.lanes.delete(key);
      this.releaseWaiters.splice(0).forEach((wake) => wake());
      this.wake();
    }
  }

  private async slot(): Promise<void> {
    while (this.full && !this.stopped && !this.draining)
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
  }

  /**
   * The handler, retried in place after a growing pause so later messages of its key stay behind
   * it (a draining shutdown stops the retries and leaves the message uncommitted). Only with an
   * explicit `maxAttempts` is a message that keeps throwing reported through `onGaveUp` (logged at
   * error level with its id and value) and COMMITTED so its key moves on: a trade of at-least-once
   * for that message that a caller must choose, never the default.
   * Returns false when the message is to be left uncommitted (stopped, or draining during a pause),
   * true when it is to be committed now, or the handler's CommitAfter.
   */
  private async run(message: T): Promise<boolean | CommitAfter> {
    for (let failures = 0; ;) {
      try {
        const answer = await this.options.handler(message);
        if (this.stopped) return false;
        return answer === undefined ? true : answer;
      } catch (error) {
        if (this.stopped) return false;
        failures += 1;
        if (failures >= this.maxAttempts) {
          this.options.onGaveUp?.(message, error);
          return true;
        }
        this.options.onFailed(message, error);
        if (this.draining) return false;
        await pause(this.backoffMs(failures - 1), this.parking.signal);
        if (this.draining || this.stopped) return false;
      }
    }
  }

  /** Commits; a failed commit is retried alone (the handler already ran and never runs again here). */
  private async commit(message: T): Promise<void> {
    for (let failures = 0; !this.stopped;) {
      try {
        await this.options.onDone(message);
        return;
      } catch (error) {
        failures += 1;
        const willRetry = failures < this.maxCommitAttempts;
        this.options.onCommitFailed?.(message, error, willRetry);
        // Given up: left uncommitted, so it is redelivered (at-least-once), not handled twice here.
        if (!willRetry) return;
        await pause(this.backoffMs(failures - 1), this.abort.signal);
      }
    }
  }

  private wake(): void {
    this.waiters.splice(0).forEach((wake) => wake());
  }

  /** Resolves once nothing is held. */
  async idle(): Promise<void> {
    while (this.tasks.size > 0) await Promise.all([...this.tasks]);
  }

  /**
   * Graceful end: handlers RUNNING now finish and commit; queued messages, parked ones (their
   * waits are aborted) and ones pausing between retries are left uncommitted. Resolves when done.
   */
  async drain(): Promise<void> {
    this.draining = true;
    this.parking.abort();
    this.slotWaiters.splice(0).forEach((wake) => wake());
    this.wake();
    await this.idle();
  }

  /** Abandons what is running: nothing more is committed (a stop behaves like a crash). */
  stop(): void {
    this.stopped = true;
    this.releaseWaiters.splice(0).forEach((wake) => wake());
    this.abort.abort();
    this.parking.abort();
    this.slotWaiters.splice(0).forEach((wake) => wake());
    this.wake();
  }
}
