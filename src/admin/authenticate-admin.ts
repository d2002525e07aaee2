import type { Middleware } from 'koa';
import { sameSecret } from '../domain/tokens.js';
import type { AppState } from '../http/context.js';
import { Unauthorized } from '../errors/errors.js';

/**
 * The admin API's own bearer token (GATEWAY_ADMIN_TOKEN), compared in constant time (sameSecret:
 * neither the length nor a prefix of the token leaks by timing).
 */
export function authenticateAdmin(adminToken: string, setting = 'GATEWAY_ADMIN_TOKEN', what = 'admin token'): Middleware<AppState> {
  return async (ctx, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    if (!match) throw new Unauthorized(`No ${what} was provided: send it as Authorization: Bearer <${setting}>.`);
    if (!sameSecret(match[1]!, adminToken)) throw new Unauthorized(`The ${what} is invalid.`);
    return next();
  };
}
