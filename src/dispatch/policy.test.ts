import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULE_MS, decide, jittered, parseRetryAfter, type RetryPolicy } from './policy.js';

const policy: RetryPolicy = { scheduleMs: DEFAULT_SCHEDULE_MS, jitter: 0.2, retryAfterMaxMs: 3_600_000 };
const now = 1_000_000;
const answer = (statusCode: number | null, retryAfter: string | null = null) => ({
  statusCode,
  retryAfter,
  error: statusCode === null ? 'ECONNREFUSED' : null,
});

describe('decide', () => {
  it('delivers on any 2xx', () => {
    expect(decide({ step: 1, trigger: 'auto' }, answer(204), policy, now).outcome).toBe('delivered');
  });

  it('schedules the next attempt by the schedule, within the jitter', () => {
    const low = decide({ step: 2, trigger: 'auto' }, answer(500), policy, now, () => 0);
    const high = decide({ step: 2, trigger: 'auto' }, answer(null), policy, now, () => 1);
    expect(low).toEqual({ outcome: 'retry', nextAttemptAt: now + 240_000 });
    expect(high).toEqual({ outcome: 'retry', nextAttemptAt: now + 360_000 });
  });

  it('fails after the last scheduled attempt', () => {
    expect(decide({ step: 8, trigger: 'auto' }, answer(500), policy, now).outcome).toBe('failed');
  });

  it('never schedules a manual replay', () => {
    expect(decide({ step: null, trigger: 'manual' }, answer(500), policy, now)).toEqual({
      outcome: 'failed',
      nextAttemptAt: null,
    });
  });

  it('gives up on 410', () => {
    expect(decide({ step: 1, trigger: 'auto' }, answer(410), policy, now).outcome).toBe('gone');
  });

  it('honours Retry-After on 429 and 503, bounded', () => {
    const mid = () => 0.5;
    expect(decide({ step: 1, trigger: 'auto' }, answer(429, '600'), policy, now, mid).nextAttemptAt).toBe(
      now + 600_000,
    );
    expect(decide({ step: 1, trigger: 'auto' }, answer(503, '999999'), policy, now, mid).nextAttemptAt).toBe(
      now + 3_600_000,
    );
    // Shorter than the schedule: the schedule wins; on 500 Retry-After is ignored.
    expect(decide({ step: 3, trigger: 'auto' }, answer(429, '1'), policy, now, mid).nextAttemptAt).toBe(
      now + 1_800_000,
    );
    expect(decide({ step: 1, trigger: 'auto' }, answer(500, '600'), policy, now, mid).nextAttemptAt).toBe(now + 5_000);
  });

  it('lets Retry-After only delay, never bring a later scheduled retry forward (attempts 5-7)', () => {
    const mid = () => 0.5;
    for (const [attempt, scheduled] of [
      [5, 18_000_000],
      [6, 36_000_000],
      [7, 36_000_000],
    ] as const) {
      // Shorter than the schedule, and longer than the bound: the schedule wins either way.
      expect(decide({ step: attempt, trigger: 'auto' }, answer(429, '600'), policy, now, mid).nextAttemptAt).toBe(
        now + scheduled,
      );
      expect(decide({ step: attempt, trigger: 'auto' }, answer(503, '999999'), policy, now, mid).nextAttemptAt).toBe(
        now + scheduled,
      );
    }
    // Within the bound and beyond the schedule: it delays.
    expect(decide({ step: 2, trigger: 'auto' }, answer(503, '1200'), policy, now, mid).nextAttemptAt).toBe(
      now + 1_200_000,
    );
  });
});

describe('helpers', () => {
  it('jitters within the bounds', () => {
    expect(jittered(1000, 0.2, () => 0)).toBe(800);
    expect(jittered(1000, 0.2, () => 1)).toBe(1200);
  });

  it('reads Retry-After seconds and dates', () => {
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter(new Date(now + 60_000).toUTCString(), now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
  });
});

describe("an endpoint's own retry schedule", () => {
  const bounded: RetryPolicy = { ...policy, jitter: 0, endpointBounds: { maxAttempts: 3, maxDelayMs: 600_000 } };
  const job = (step: number, retrySchedule: number[]) => ({ step, trigger: 'auto' as const, retrySchedule });

  it('waits its seconds before each retry instead of the gateway-wide schedule', () => {
    const unbounded = { ...policy, jitter: 0 };
    expect(decide(job(1, [30, 120]), answer(500), unbounded, now)).toEqual({
      outcome: 'retry',
      nextAttemptAt: now + 30_000,
    });
    expect(decide(job(2, [30, 120]), answer(500), unbounded, now)).toEqual({
      outcome: 'retry',
      nextAttemptAt: now + 120_000,
    });
    expect(decide(job(3, [30, 120]), answer(500), unbounded, now)).toEqual({ outcome: 'failed', nextAttemptAt: null });
  });

  it('makes one attempt only with an empty schedule', () => {
    expect(decide(job(1, []), answer(500), policy, now).outcome).toBe('failed');
  });

  it("is cut to the operator's bounds of today: attempts and each delay", () => {
    expect(decide(job(1, [3600, 60, 60, 60]), answer(500), bounded, now)).toEqual({
      outcome: 'retry',
      nextAttemptAt: now + 600_000,
    });
    expect(decide(job(2, [3600, 60, 60, 60]), answer(500), bounded, now).outcome).toBe('retry');
    expect(decide(job(3, [3600, 60, 60, 60]), answer(500), bounded, now).outcome).toBe('failed');
  });

  it('takes the jitter and a longer Retry-After like the gateway-wide schedule', () => {
    expect(decide(job(1, [100]), answer(503, '300'), policy, now, () => 0)).toEqual({
      outcome: 'retry',
      nextAttemptAt: now + 300_000,
    });
    expect(decide(job(1, [100]), answer(500), policy, now, () => 0)).toEqual({
      outcome: 'retry',
      nextAttemptAt: now + 80_000,
    });
  });
});
