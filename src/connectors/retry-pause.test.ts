import { describe, expect, it } from 'vitest';
import { retryPauseMs } from './retry-pause.js';

describe('retryPauseMs', () => {
  const schedule = [0, 1_000, 5_000];

  it("answers the schedule's pause after each try, and none once the schedule is spent", () => {
    expect([1, 2, 3, 4].map((tries) => retryPauseMs(schedule, tries, undefined))).toEqual([0, 1_000, 5_000, undefined]);
  });

  it("waits for a longer Retry-After, up to a minute, never shorter than the schedule's pause", () => {
    expect(retryPauseMs(schedule, 2, 30_000)).toBe(30_000);
    expect(retryPauseMs(schedule, 2, 3_600_000)).toBe(60_000);
    expect(retryPauseMs(schedule, 3, 2_000)).toBe(5_000);
    expect(retryPauseMs(schedule, 4, 30_000)).toBeUndefined();
  });
});
