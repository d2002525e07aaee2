import type { SessionPolicy } from '../http/web-session.js';
import { sessionOf } from '../http/web-session.js';
import { Unauthorized } from '../errors/errors.js';
import type { CompanyRow } from '../store/resources/companies.js';
import type { Store } from '../store/store.js';

/** Portal sessions: 30 minutes without use end one, none lives longer than 4 hours; the cookie goes to /portal only. */
export const PORTAL_SESSION = {
  face: 'portal',
  cookieName: 'gw_portal',
  cookiePath: '/portal',
  idleMs: 30 * 60_000,
  maxMs: 4 * 3_600_000,
} as const;

/** How long a portal link opens a session, once. */
export const PORTAL_LINK_TTL_MS = 10 * 60_000;

export function portalPolicy(secure: boolean): SessionPolicy {
  return { ...PORTAL_SESSION, secure };
}

/**
 * The one company a portal request may see: the company of its session, read again on every
 * request (a company deleted since ends its sessions with it). Nothing in the request names it.
 */
export function sessionCompany(store: Store, ctx: Parameters<typeof sessionOf>[0]): CompanyRow {
  const session = sessionOf(ctx);
  const company =
    session.account_id === null || session.company_id === null
      ? undefined
      : store.companies.find(session.account_id, session.company_id);
  if (company === undefined) throw new Unauthorized('The company of this portal session no longer exists.');
  return company;
}
