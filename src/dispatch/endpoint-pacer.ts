import { pause } from '../streams/stream.js';
import { parseRetryAfter } from './policy.js';

/** The slowest a 429 can make an endpoint: one attempt a minute. */
const SLOWEST_PER_SECOND = 1 / 60;

/**
 * Paces the attempts of rate-limited endpoints (`rate_limit`, attempts per second): an attempt
 * starts no sooner than 1/rate seconds after the endpoint's previous one, in the order they asked.
 * A 429 from the receiver halves the endpoint's pace (down to one a minute) and holds every attempt
 * of it until its `Retry-After` passed (bounded like the retry policy's); each success then brings
 * the pace back up by a tenth of the limit. Real time: the pace is the receiver's, not a test clock's.
 *
 * It paces one dispatcher; a rate-limited endpoint's attempts all reach the same one
 * (redeliveryStream in src/streams/catalog.ts), so the limit holds per endpoint.
 */
export class EndpointPacer {
  private readonly paces = new Map<number, Pace>();

  constructor(private readonly retryAfterMaxMs: number) {}

  /** Resolves when the endpoint's next attempt may start; rejects when `signal` aborts first. */
  take(endpointId: number, limit: number, signal: AbortSignal): Promise<void> {
    let pace = this.paces.get(endpointId);
    if (pace === undefined) this.paces.set(endpointId, (pace = new Pace(limit)));
    pace.limitTo(limit);
    return pace.take(signal);
  }

  /** What the endpoint answered an attempt: a 429 slows it, a 2xx speeds it up again. */
  answered(endpointId: number, statusCode: number | null, retryAfter: string | null): void {
    const pace = this.paces.get(endpointId);
    if (pace === undefined || statusCode === null) return;
    if (statusCode === 429) {
      const wait = parseRetryAfter(retryAfter, Date.now());
      pace.slowDown(wait === null ? null : Math.min(wait, this.retryAfterMaxMs));
    } else if (statusCode >= 200 && statusCode < 300) pace.recover();
  }
}

class Pace {
  private rate: number;
  private last = Number.NEGATIVE_INFINITY;
  private heldUntil = 0;
  /** The attempts waiting, one after the other. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private limit: number) {
    this.rate = limit;
  }

  limitTo(limit: number): void {
    if (limit === this.limit) return;
    const slowed = this.rate < this.limit;
    this.limit = limit;
    this.rate = slowed ? Math.min(this.rate, limit) : limit;
  }

  take(signal: AbortSignal): Promise<void> {
    const turn = this.queue.then(() => this.wait(signal));
    this.queue = turn.catch(() => {});
    return turn;
  }

  slowDown(retryAfterMs: number | null): void {
    this.rate = Math.max(this.rate / 2, SLOWEST_PER_SECOND);
    const now = performance.now();
    this.heldUntil = Math.max(this.heldUntil, now + (retryAfterMs ?? 1_000 / this.rate));
  }

  recover(): void {
    this.rate = Math.min(this.limit, this.rate + this.limit / 10);
  }

  /** Waits until both the pace and a 429's hold allow the next attempt; each wake-up looks again (a 429 may have come meanwhile). */
  private async wait(signal: AbortSignal): Promise<void> {
    for (;;) {
      if (signal.aborted) throw new Error('the dispatcher is stopping');
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
