import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../http/context.js';
import { Unauthorized } from '../http/errors.js';

/**
 * The admin API's own bearer token (GATEWAY_ADMIN_TOKEN), compared in constant time. Digests of
 * equal length are compared, so neither the length nor a prefix of the token leaks by timing.
 */
export function authenticateAdmin(adminToken: string): Middleware<AppState> {
  const expected = createHash('sha256').update(adminToken).digest();
  return async (ctx, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    if (!match) throw new Unauthorized('No admin token was provided: send it as Authorization: Bearer <GATEWAY_ADMIN_TOKEN>.');
    const given = createHash('sha256').update(match[1]!).digest();
    if (!timingSafeEqual(given, expected)) throw new Unauthorized('The admin token is invalid.');
    return next();
  };
}
