/** One minute of webhook attempts: how many delivered, how many did not (retry, failed, gone). */
export interface AttemptMinute {
  /** Start of the minute, unix ms. */
  start: number;
  delivered: number;
  failed: number;
}

const MINUTE_MS = 60_000;

/**
 * The webhook attempts of the last hour, counted per minute as the core records them: the rate
 * behind the console's pipeline page (docs/console.md). Sixty counters in a ring, so memory and
 * the cost of a record stay constant; a minute not written for an hour is read as zero.
 */
export class AttemptHistory {
  private readonly minutes: AttemptMinute[] = Array.from({ length: 60 }, () => ({
    start: -1,
    delivered: 0,
    failed: 0,
  }));

  record(delivered: boolean, at: number): void {
    const start = at - (at % MINUTE_MS);
    const slot = this.minutes[(start / MINUTE_MS) % 60]!;
    if (slot.start !== start) {
      slot.start = start;
      slot.delivered = 0;
      slot.failed = 0;
    }
    if (delivered) slot.delivered += 1;
    else slot.failed += 1;
  }

  /** The sixty minutes up to and including the current one, oldest first. */
  lastHour(now: number): AttemptMinute[] {
    const current = now - (now % MINUTE_MS);
    return Array.from({ length: 60 }, (_, index) => {
      const start = current - (59 - index) * MINUTE_MS;
      const slot = this.minutes[(start / MINUTE_MS) % 60]!;
      return slot.start === start ? { ...slot } : { start, delivered: 0, failed: 0 };
    });
  }
}
