/** Longest Retry-After a provider can impose on one retry (the wait holds the job's stream lease). */
const RETRY_AFTER_MAX_MS = 60_000;

/**
 * The pause before trying a provider call again after its `tries`-th transient failure: the
 * schedule's, or the provider's longer Retry-After (up to a minute); undefined once the schedule
 * has no pause left.
 */
export function retryPauseMs(
  scheduleMs: readonly number[],
  tries: number,
  retryAfterMs: number | undefined,
): number | undefined {
  const delay = scheduleMs[tries - 1];
  return delay === undefined ? undefined : Math.max(delay, Math.min(retryAfterMs ?? 0, RETRY_AFTER_MAX_MS));
}
