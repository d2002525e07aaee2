import { RateLimiterMemory, RateLimiterQueue, RateLimiterQueueError } from 'rate-limiter-flexible';
import type { Metrics } from '../metrics/metrics.js';
import type { AppContext } from './context.js';
import { refuseFor } from './rate-limit.js';

/** Where a credential was presented: the admin API, /metrics, the console's login, the REST API. */
export type AuthFace = 'admin' | 'metrics' | 'console' | 'api';

/** The settings of the throttle (docs/configuration.md). */
export interface AuthThrottleLimits {
  /** GATEWAY_ADMIN_AUTH_FREE_FAILURES: wrong admin tokens a source may send in a window before it waits. */
  adminAuthFreeFailures: number;
  /** GATEWAY_ADMIN_AUTH_GLOBAL_FAILURES: wrong admin tokens a minute, from every source together, past which checks are paced. */
  adminAuthGlobalFailures: number;
}

/** The window a source's wrong admin tokens are counted in, from its first one. */
export const ADMIN_FAILURE_WINDOW_SECONDS = 15 * 60;
/** The longest a source waits after a wrong admin token. */
export const ADMIN_MAX_WAIT_SECONDS = 15 * 60;
/** Admin-token checks let through a second while the global ceiling is passed, and how many may queue for them. */
export const ADMIN_PACE = { perSecond: 5, queue: 200 } as const;
/** Wrong API tokens from one source in a window after which the log says so (once per window). */
export const API_FAILURES_LOGGED_AFTER = 100;

/**
 * Slows the guessing of credentials (issue 51, docs/decisions.md "Guessing the admin token").
 *
 * The admin token (and the metrics token) is taken by the admin API's Bearer check, /metrics and
 * the console's login; all three count their wrong tokens here, per source address and in total.
 * - Per source: the first GATEWAY_ADMIN_AUTH_FREE_FAILURES wrong tokens within 15 minutes cost
 *   nothing; each further one makes the source wait, 1 s, then 2 s, 4 s, ... up to 15 minutes.
 *   While it waits, every token it presents (the right one included: else the wait would still
 *   answer whether a guess was right) is answered 429 with Retry-After, without being compared.
 *   A right token from a source that is not waiting clears its count.
 * - In total: past GATEWAY_ADMIN_AUTH_GLOBAL_FAILURES wrong tokens a minute, from any number of
 *   sources, every admin-token check waits its turn, ADMIN_PACE.perSecond a second. This only
 *   slows: no source is refused for what others did (only a full queue answers 429, Retry-After 1).
 * So an attacker at one address cannot lock the operator out from another, and many addresses
 * together guess no faster than the pace.
 *
 * API tokens are 256 random bits and cannot be guessed; their wrong attempts are counted per source
 * (the log names a source past API_FAILURES_LOGGED_AFTER in a window) and in the metrics, not refused.
 * Counters live in this process's memory: a restart starts them afresh.
 */
export class AuthThrottle {
  private readonly failures: RateLimiterMemory;
  private readonly waits = new RateLimiterMemory({ keyPrefix: 'admin-wait', points: 1, duration: 1 });
  private readonly total = new RateLimiterMemory({ keyPrefix: 'admin-total', points: 1_000_000_000, duration: 60 });
  private readonly pacer = new RateLimiterQueue(
    new RateLimiterMemory({ keyPrefix: 'admin-pace', points: ADMIN_PACE.perSecond, duration: 1 }),
    { maxQueueSize: ADMIN_PACE.queue },
  );
  private readonly apiFailures = new RateLimiterMemory({
    keyPrefix: 'api-failures',
    points: 1_000_000_000,
    duration: ADMIN_FAILURE_WINDOW_SECONDS,
  });

  constructor(
    private readonly limits: AuthThrottleLimits,
    private readonly metrics?: Metrics,
  ) {
    this.failures = new RateLimiterMemory({
      keyPrefix: 'admin-failures',
      points: 1_000_000_000,
      duration: ADMIN_FAILURE_WINDOW_SECONDS,
    });
  }

  /**
   * Before an admin-class token from this request's source is compared: 429 while the source waits;
   * paced while the global ceiling is passed.
   */
  async admit(ctx: AppContext, face: AuthFace): Promise<void> {
    const waiting = await this.waits.get(ctx.ip);
    if (waiting !== null && waiting.consumedPoints > 1 && waiting.msBeforeNext > 0) {
      this.metrics?.authThrottled(face);
      refuseFor(ctx, waiting.msBeforeNext);
    }
    const total = await this.total.get('all');
    if (total === null || total.consumedPoints <= this.limits.adminAuthGlobalFailures) return;
    this.metrics?.authPaced();
    try {
      await this.pacer.removeTokens(1);
    } catch (error) {
      if (!(error instanceof RateLimiterQueueError)) throw error;
      this.metrics?.authThrottled(face);
      refuseFor(ctx, 1000);
    }
  }

  /** A wrong admin-class token: counted for the source and in total; past the free ones the source waits. */
  async failed(ctx: AppContext, face: AuthFace): Promise<void> {
    this.metrics?.authFailed('admin', face);
    const [counted] = await Promise.all([this.failures.penalty(ctx.ip, 1), this.total.penalty('all', 1)]);
    const beyond = counted.consumedPoints - this.limits.adminAuthFreeFailures;
    ctx.state.log.warn({ ip: ctx.ip, face, failures: counted.consumedPoints }, 'wrong admin token');
    if (beyond > 0) await this.waits.block(ctx.ip, Math.min(ADMIN_MAX_WAIT_SECONDS, 2 ** Math.min(beyond - 1, 20)));
  }

  /** The right admin-class token from a source that was not waiting: its count starts afresh. */
  async succeeded(ctx: AppContext): Promise<void> {
    await this.failures.delete(ctx.ip);
  }

  /** A wrong API token: counted for the source and in the metrics, never refused for. */
  async apiFailed(ctx: AppContext): Promise<void> {
    this.metrics?.authFailed('api', 'api');
    const counted = await this.apiFailures.penalty(ctx.ip, 1);
    if (counted.consumedPoints === API_FAILURES_LOGGED_AFTER) {
      ctx.state.log.warn({ ip: ctx.ip, failures: counted.consumedPoints }, 'many wrong API tokens from one address');
    }
  }
}
