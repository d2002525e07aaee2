/**
 * The console through the front (docs/scaling.md, "The console through the front"). A console
 * session lives in the store of the shard that opened it, the home shard (the lowest live one),
 * while the console's pages call the admin API of every shard. So the front checks the session's
 * cookie (and, for a method that changes something, its CSRF token) at the home shard, and sends
 * the request on with `Authorization: Bearer <GATEWAY_ADMIN_TOKEN>` in place of the session: the
 * front holds the same admin token as the cores, and keeps nothing between requests.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { readCookie } from '../http/web-session.js';

/** The console's cookie (src/console/routes.ts, CONSOLE_SESSION). */
export const CONSOLE_COOKIE = 'gw_console';

/** The core's session check (src/console/routes.ts, SESSION_CHECK_PATH): 204 for a live session, else its 401 or 403. */
export const SESSION_CHECK_PATH = '/console/session/check';

/** The header the console's pages send the session's CSRF token in (src/http/web-session.ts, CSRF_HEADER). */
const CSRF_HEADER = 'x-csrf-token';

/**
 * The admin routes a core opens to a console session (src/admin/routes.ts): deliveries, replays, a
 * company's endpoints and export, the pipeline and the API tokens. The others (a channel's callback
 * secrets and template sync, the sandbox) take the admin token alone. Case-insensitive, as the
 * cores' router matches paths.
 */
const SESSION_ADMIN_PATH = /^\/admin\/(deliveries|replays|companies|pipeline|tokens)(\/|$)/i;

/**
 * Whether a request is the console's call to the admin API: a path of the routes a session opens,
 * no Authorization header and the console's cookie, which is when a core's admin API takes the
 * session (src/admin/authenticate-admin.ts). Any other request goes on as it came, so a route that
 * takes the admin token alone answers a console cookie with 401, as on one daemon.
 */
export function callsAdminWithConsoleSession(pathname: string, headers: IncomingHttpHeaders): boolean {
  if (!SESSION_ADMIN_PATH.test(pathname)) return false;
  if ((headers.authorization ?? '') !== '') return false;
  return (readCookie(headers.cookie ?? '', CONSOLE_COOKIE) ?? '') !== '';
}

/**
 * Puts the admin token in place of the console session in a request's headers, once the home
 * shard vouched for the session: the shards get the token, never the session's cookie or CSRF
 * token (other cookies stay).
 */
export function useAdminToken(headers: IncomingHttpHeaders, adminToken: string): void {
  const others = (headers.cookie ?? '')
    .split(';')
    .filter((pair) => pair.trim() !== '' && pair.slice(0, pair.indexOf('=')).trim() !== CONSOLE_COOKIE);
  if (others.length === 0) delete headers.cookie;
  else headers.cookie = others.map((pair) => pair.trim()).join('; ');
  delete headers[CSRF_HEADER];
  headers.authorization = `Bearer ${adminToken}`;
}
