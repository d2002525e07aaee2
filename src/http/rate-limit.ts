import type { Middleware } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitGroup } from '../config/api-limits.js';
import { TooManyRequests } from '../errors/errors.js';
import { accountOf, type AppState } from './context.js';

/** One group's windows, each a limiter keyed by account. */
interface LimitedGroup {
  name: string;
  limiters: RateLimiterMemory[];
}

declare module 'koa' {
  interface BaseContext {
    /** The path pattern of the route @koa/router matched (set before the route's own middleware). */
    _matchedRoute?: string | RegExp;
  }
}

/**
 * The API's rate limits (GATEWAY_API_RATE_LIMITS, src/config/api-limits.ts): runs right after
 * authentication, finds the group of the matched route and spends one request of each of its windows
 * for the caller's account. A request past any window answers 429 `too_many_requests` with
 * `Retry-After` (whole seconds) and the wait in the detail, and its handler does not run. Routes of
 * no group pass untouched. Counters live in this process's memory: the API is served by one process
 * (the core), and a restart starts every window afresh.
 */
export function rateLimit(groups: readonly RateLimitGroup[]): Middleware<AppState> {
  const byRoute = new Map<string, LimitedGroup>();
  for (const group of groups) {
    const limited = {
      name: group.name,
      limiters: group.windows.map(
        (w) =>
          new RateLimiterMemory({ keyPrefix: `${group.name}:${w.seconds}`, points: w.points, duration: w.seconds }),
      ),
    };
    for (const path of group.paths) byRoute.set(`${group.method} ${path}`, limited);
  }

  return async (ctx, next) => {
    if (byRoute.size === 0) return void (await next());
    const group = byRoute.get(`${ctx.method} ${String(ctx._matchedRoute)}`);
    if (group === undefined) return void (await next());
    const account = String(accountOf(ctx).id);
    const spent = await Promise.allSettled(group.limiters.map((limiter) => limiter.consume(account)));
    const refusals = spent.filter((result) => result.status === 'rejected').map((result) => result.reason as unknown);
    if (refusals.length === 0) return void (await next());
    let waitMs = 0;
    for (const refusal of refusals) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      waitMs = Math.max(waitMs, refusal.msBeforeNext);
    }
    refuseFor(ctx, waitMs);
  };
}

/** Answers 429 `too_many_requests` with `Retry-After`: the wait in whole seconds, at least one. */
export function refuseFor(ctx: { set(field: string, value: string): void }, waitMs: number): never {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  ctx.set('Retry-After', String(seconds));
  throw new TooManyRequests(seconds);
}
