import type { ParameterizedContext } from 'koa';
import type { RouterContext } from '@koa/router';
import type { Logger } from '../log.js';
import type { AccountRow } from '../store/resources/accounts.js';
import type { WebSessionRow } from '../store/resources/web-sessions.js';

export interface AppState {
  requestId: string;
  log: Logger;
  /**
   * Fields a route adds to the request line (src/http/request-log.ts), such as a callback's
   * outcome: ids, names and counts that can never hold a secret (the line is not redacted).
   */
  lineFields?: LineFields;
  /** Set by `authenticate`; every API route runs behind it. */
  account?: AccountRow;
  /** Set by `sessionAuth` (src/http/web-session.ts) on the routes of the console and the portal. */
  webSession?: WebSessionRow;
  /** The session's own token from its cookie (never logged), to derive its CSRF token. */
  sessionToken?: string;
  /**
   * The answer carries a secret (set by answersSecret): it is not kept for an idempotent repeat,
   * and says Cache-Control: no-store.
   */
  secretAnswer?: boolean;
}

/** Fixed fields of the request line: never contents, never secrets. */
export type LineFields = Readonly<Record<string, string | number | boolean>>;

export type AppContext = ParameterizedContext<AppState>;
export type RouteContext = RouterContext<AppState>;

/**
 * Marks the answer as carrying a secret (a webhook's signing secret, a portal link): the
 * idempotency middleware does not keep it (src/http/idempotency.ts), and it is never cached.
 */
export function answersSecret(ctx: { state: AppState; set(field: string, value: string): void }): void {
  ctx.state.secretAnswer = true;
  ctx.set('Cache-Control', 'no-store');
}

/** The account of an authenticated request; a route that forgot `authenticate` fails loudly here. */
export function accountOf(ctx: { state: AppState }): AccountRow {
  const account = ctx.state.account;
  if (account === undefined) throw new Error('route is not behind authenticate');
  return account;
}
