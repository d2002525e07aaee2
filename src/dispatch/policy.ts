import type { AttemptOutcome, DeliveryJob } from '../streams/catalog.js';

/** The retry policy (configuration): delays before each attempt, the first one 0 (immediately). */
export interface RetryPolicy {
  scheduleMs: readonly number[];
  /** ±fraction applied to every delay (0.2 = ±20 %). */
  jitter: number;
  /** A Retry-After on 429/503 is honoured up to this many ms; longer ones are cut to it. */
  retryAfterMaxMs: number;
  /**
   * The operator's bounds on an endpoint's own schedule, applied when it is followed too (a schedule
   * saved under wider bounds is cut to today's). Without them an endpoint's schedule is followed as it is.
   */
  endpointBounds?: { maxAttempts: number; maxDelayMs: number };
}

export const DEFAULT_SCHEDULE_MS = [
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
] as const;

/** What came back from one attempt: an HTTP answer, or an error before any answer. */
export interface AttemptResult {
  statusCode: number | null;
  retryAfter: string | null;
  error: string | null;
  /** A broker destination confirmed the event (src/dispatch/destinations/): it has no status. */
  delivered?: true;
}

export interface Decision {
  outcome: AttemptOutcome;
  /** When the next attempt is due (outcome 'retry'). */
  nextAttemptAt: number | null;
}

/**
 * The one place that says deliver, retry or give up. A manual replay never enters the automatic
 * schedule; 410 gives up and disables the endpoint; after the last scheduled attempt the delivery
 * fails. The schedule is the endpoint's own (`retrySchedule`, seconds before each retry) when it
 * has one, else the gateway-wide one.
 */
export function decide(
  job: Pick<DeliveryJob, 'step' | 'trigger'> & { retrySchedule?: readonly number[] },
  result: AttemptResult,
  policy: RetryPolicy,
  now: number,
  random = Math.random,
): Decision {
  const code = result.statusCode;
  if (result.delivered === true) return { outcome: 'delivered', nextAttemptAt: null };
  if (code !== null && code >= 200 && code < 300) return { outcome: 'delivered', nextAttemptAt: null };
  if (code === 410) return { outcome: 'gone', nextAttemptAt: null };
  const scheduleMs =
    job.retrySchedule === undefined ? policy.scheduleMs : endpointScheduleMs(job.retrySchedule, policy);
  if (job.trigger === 'manual' || job.step === null || job.step >= scheduleMs.length)
    return { outcome: 'failed', nextAttemptAt: null };
  const scheduled = jittered(scheduleMs[job.step]!, policy.jitter, random);
  const retryAfter = code === 429 || code === 503 ? parseRetryAfter(result.retryAfter, now) : null;
  // Retry-After only ever delays (up to its bound); it never brings a later scheduled retry forward.
  const delay = retryAfter === null ? scheduled : Math.max(scheduled, Math.min(retryAfter, policy.retryAfterMaxMs));
  return { outcome: 'retry', nextAttemptAt: now + delay };
}

/** An endpoint's schedule as the policy reads one: 0 first (the first attempt), within the operator's bounds. */
function endpointScheduleMs(seconds: readonly number[], policy: RetryPolicy): number[] {
  const bounds = policy.endpointBounds;
  const delays = bounds === undefined ? seconds : seconds.slice(0, bounds.maxAttempts - 1);
  return [0, ...delays.map((s) => (bounds === undefined ? s * 1000 : Math.min(s * 1000, bounds.maxDelayMs)))];
}

export function jittered(delayMs: number, jitter: number, random = Math.random): number {
  return Math.round(delayMs * (1 + jitter * (2 * random() - 1)));
}

/** Retry-After as delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
