import type { Middleware } from 'koa';
import { sameSecret } from '../domain/tokens.js';
import type { AuthFace, AuthThrottle } from '../http/auth-throttle.js';
import type { AppState } from '../http/context.js';
import { Unauthorized } from '../errors/errors.js';

export interface AdminAuthOptions {
  /** The environment variable the token comes from, named in the 401's text. */
  setting?: string;
  what?: string;
  /**
   * The console's session check (src/http/web-session.ts), used when the request sends no
   * Authorization header but a console cookie: the console's pages call this same API.
   */
  consoleSession?: Middleware<AppState>;
  consoleCookie?: string;
  /** Counts and slows wrong tokens (src/http/auth-throttle.ts); one per app, shared by every path taking the token. */
  throttle?: AuthThrottle;
  /** Where the token is taken, for the throttle's metrics. */
  face?: AuthFace;
}

/**
 * The admin API's own bearer token (GATEWAY_ADMIN_TOKEN), compared in constant time (sameSecret:
 * neither the length nor a prefix of the token leaks by timing), after the throttle admitted the
 * source (a 429 while it waits after too many wrong tokens); a wrong one is counted there. With a
 * console session check given, a request without an Authorization header may present a console
 * session instead.
 */
export function authenticateAdmin(adminToken: string, options: AdminAuthOptions = {}): Middleware<AppState> {
  const {
    setting = 'GATEWAY_ADMIN_TOKEN',
    what = 'admin token',
    consoleSession,
    consoleCookie = 'gw_console',
    throttle,
    face = 'admin',
  } = options;
  const cookiePattern = new RegExp(`(^|;)\\s*${consoleCookie}=`);
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (header === '' && consoleSession !== undefined && cookiePattern.test(ctx.get('cookie')))
      return void (await consoleSession(ctx, next));
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new Unauthorized(`No ${what} was provided: send it as Authorization: Bearer <${setting}>.`);
    await throttle?.admit(ctx, face);
    if (!sameSecret(match[1]!, adminToken)) {
      await throttle?.failed(ctx, face);
      throw new Unauthorized(`The ${what} is invalid.`);
    }
    await throttle?.succeeded(ctx);
    return void (await next());
  };
}
