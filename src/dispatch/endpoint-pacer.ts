import { pause } from '../streams/stream.js';
import { parseRetryAfter } from './policy.js';

/** The slowest a 429 can make an endpoint: one attempt a minute. */
const SLOWEST_PER_SECOND = 1 / 60;

/**
 * Paces the attempts of rate-limited endpoints (`rate_limit`, attempts per second), by key (the
 * attempts' order key, one per endpoint): an attempt starts no sooner than 1/rate seconds after the
 * key's previous one started, in the order they asked. A 429 from the receiver halves the key's
 * pace (down to one a minute) and holds every attempt of it until its `Retry-After` passed
 * (bounded as the retry policy bounds it); each success then brings the pace back up by a tenth of
 * the limit. Real time: the pace is the receiver's.
 *
 * The poster asks it just before each send (src/dispatch/webhook-poster.ts), so the pace is that
 * of the requests on the wire. One dispatcher consumes all of a rate-limited endpoint's attempts
 * (redeliveryStream in src/streams/catalog.ts), so the limit holds per endpoint.
 */
export class EndpointPacer {
  private readonly paces = new Map<string, Pace>();
  private cancelled = new AbortController();
  private takes = 0;

  /**
   * Resolves when the key's next attempt may start; rejects with `cancelledError` after
   * `cancelWaiting`. Every attempt let start must be `answered`, whatever became of it.
   */
  take(key: string, limit: number, cancelledError: () => Error): Promise<void> {
    if (++this.takes % FORGET_EVERY_TAKES === 0) this.forgetIdle();
    let pace = this.paces.get(key);
    if (pace === undefined) this.paces.set(key, (pace = new Pace(limit)));
    pace.limitTo(limit);
    const { signal } = this.cancelled;
    return pace.take(async () => {
      await pace.wait(signal);
      if (signal.aborted) throw cancelledError();
    });
  }

  /**
   * What the receiver answered the key's attempt (`statusCode` null: no answer): a 429 slows it, a
   * 2xx brings it back up.
   */
  answered(key: string, statusCode: number | null, retryAfter: string | null, retryAfterMaxMs: number): void {
    const pace = this.paces.get(key);
    if (pace === undefined) return;
    pace.ended();
    if (statusCode === null) return;
    if (statusCode === 429) {
      const wait = parseRetryAfter(retryAfter, Date.now());
      pace.slowDown(wait === null ? null : Math.min(wait, retryAfterMaxMs));
    } else if (statusCode >= 200 && statusCode < 300) pace.recover();
  }

  /** Every attempt waiting for its turn now fails (shutting down). */
  cancelWaiting(): void {
    this.cancelled.abort();
    this.cancelled = new AbortController();
  }

  /** Keys with a pace kept: those of the endpoints attempted lately, not of every one ever seen. */
  get keys(): number {
    return this.paces.size;
  }

  /** Drops the paces a new one would equal: nothing waiting or in flight, no slowdown, no spacing left. */
  forgetIdle(now = performance.now()): void {
    for (const [key, pace] of this.paces) if (pace.idleAt(now)) this.paces.delete(key);
  }
}

/** How often `take` looks for paces to forget: rarely enough to cost nothing per attempt. */
const FORGET_EVERY_TAKES = 256;

class Pace {
  private rate: number;
  private last = Number.NEGATIVE_INFINITY;
  private heldUntil = 0;
  /** The attempts waiting, one after the other. */
  private queue: Promise<void> = Promise.resolve();
  /** Attempts asked for and not answered yet (waiting for their turn or on the wire). */
  private open = 0;

  constructor(private limit: number) {
    this.rate = limit;
  }

  limitTo(limit: number): void {
    if (limit === this.limit) return;
    const slowed = this.rate < this.limit;
    this.limit = limit;
    this.rate = slowed ? Math.min(this.rate, limit) : limit;
  }

  take(turn: () => Promise<void>): Promise<void> {
    this.open += 1;
    const taken = this.queue.then(turn);
    // A turn that failed (cancelled) will not be answered: it is no longer open.
    this.queue = taken.catch(() => void (this.open -= 1));
    return taken;
  }

  ended(): void {
    this.open = Math.max(0, this.open - 1);
  }

  /** Whether a new Pace would behave the same from `now` on. */
  idleAt(now: number): boolean {
    return this.open === 0 && this.rate === this.limit && this.heldUntil <= now && this.last + 1_000 / this.rate <= now;
  }

  slowDown(retryAfterMs: number | null): void {
    this.rate = Math.max(this.rate / 2, SLOWEST_PER_SECOND);
    this.heldUntil = Math.max(this.heldUntil, performance.now() + (retryAfterMs ?? 1_000 / this.rate));
  }

  recover(): void {
    this.rate = Math.min(this.limit, this.rate + this.limit / 10);
  }

  /** Waits until both the pace and a 429's hold allow the next attempt; each wake-up looks again (a 429 may have come meanwhile). */
  async wait(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const now = performance.now();
      const at = Math.max(this.last + 1_000 / this.rate, this.heldUntil);
      if (at <= now) {
        this.last = now;
        return;
      }
      await pause(at - now, signal);
    }
  }
}
