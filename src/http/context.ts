import type { ParameterizedContext } from 'koa';
import type { RouterContext } from '@koa/router';
import type { Logger } from '../log.js';
import type { AccountRow } from '../store/accounts.js';

export interface AppState {
  requestId: string;
  log: Logger;
  /** Set by `authenticate`; every API route runs behind it. */
  account?: AccountRow;
}

export type AppContext = ParameterizedContext<AppState>;
export type RouteContext = RouterContext<AppState>;

/** The account of an authenticated request; a route that forgot `authenticate` fails loudly here. */
export function accountOf(ctx: { state: AppState }): AccountRow {
  const account = ctx.state.account;
  if (account === undefined) throw new Error('route is not behind authenticate');
  return account;
}
