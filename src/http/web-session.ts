import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';
import { digestApiToken, sameSecret } from '../domain/tokens.js';
import { Forbidden, Unauthorized, UnsupportedMediaType } from '../errors/errors.js';
import type { Store } from '../store/store.js';
import type { WebFace, WebSessionRow } from '../store/resources/web-sessions.js';
import type { AppContext, AppState } from './context.js';

/** How a face's sessions live: idle expiry, the longest lifetime, and its cookie. */
export interface SessionPolicy {
  face: WebFace;
  cookieName: string;
  /** The cookie is sent to this path and below only. */
  cookiePath: string;
  /** A session unused this long ends; each use moves its end this far out again. */
  idleMs: number;
  /** No renewal keeps a session past this age. */
  maxMs: number;
  /** Secure cookies when the daemon is reached over https (GATEWAY_PUBLIC_URL). */
  secure: boolean;
}

export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** What the browser gets when a session opens: the CSRF token to send with every change, and the end. */
export interface OpenedSession {
  csrf_token: string;
  expires_at: string;
}

/**
 * The CSRF token of a session: derived from the session token (SHA-256 under a label), so it is
 * never stored, is different from the cookie, and does not reveal it.
 */
export function csrfTokenOf(sessionToken: string): string {
  return Buffer.from(digestApiToken(`csrf:${sessionToken}`), 'hex').toString('base64url');
}

/**
 * Opens a session: a random token (32 bytes) goes into an HttpOnly, SameSite=Strict cookie; the
 * store keeps its SHA-256 digest only. `scope` is the company of a portal session, or the digest
 * of the admin token a console session was opened with (an HMAC under a key of the process).
 */
export function openSession(
  ctx: AppContext,
  store: Store,
  policy: SessionPolicy,
  scope: { accountId: number | null; companyId: number | null; credentialSha256: string | null },
  now = Date.now(),
): OpenedSession {
  const token = `gws_${randomBytes(32).toString('base64url')}`;
  const expiresAt = now + policy.idleMs;
  store.transaction(() =>
    store.webSessions.createSession(
      { tokenSha256: digestApiToken(token), face: policy.face, ...scope, expiresAt, hardExpiresAt: now + policy.maxMs },
      now,
    ),
  );
  setCookie(ctx, policy, token);
  return { csrf_token: csrfTokenOf(token), expires_at: new Date(expiresAt).toISOString() };
}

/** Ends the request's session (if any) and clears its cookie. */
export function endSession(ctx: AppContext, store: Store, policy: SessionPolicy): void {
  const token = readCookie(ctx.get('cookie'), policy.cookieName);
  if (token !== undefined) store.transaction(() => store.webSessions.endSession(digestApiToken(token)));
  setCookie(ctx, policy, '', 0);
}

/**
 * Authenticates a request by its session cookie: the session must exist for this face, be
 * unexpired and (console) opened with the admin token configured now. Every method that changes
 * something must carry the session's CSRF token in X-CSRF-Token. Sets ctx.state.webSession and
 * ctx.state.sessionToken; moves the session's idle end out, at most once a minute.
 */
export function sessionAuth(
  store: Store,
  policy: SessionPolicy,
  expectedCredential: string | null = null,
): Middleware<AppState> {
  return async (ctx, next) => {
    const token = readCookie(ctx.get('cookie'), policy.cookieName);
    if (token === undefined || token === '') throw new Unauthorized(`No ${policy.face} session: log in first.`);
    const now = Date.now();
    const digest = digestApiToken(token);
    const session = store.webSessions.findSession(digest, policy.face, now);
    if (session === undefined || (expectedCredential !== null && session.credential_sha256 !== expectedCredential)) {
      throw new Unauthorized(`The ${policy.face} session has ended: log in again.`);
    }
    if (!SAFE_METHODS.has(ctx.method) && !sameSecret(ctx.get(CSRF_HEADER), csrfTokenOf(token))) {
      throw new Forbidden(
        `The CSRF token is missing or wrong: send the csrf_token of the session in the ${CSRF_HEADER} header.`,
      );
    }
    if (session.expires_at - now < policy.idleMs - 60_000 && session.expires_at < session.hard_expires_at) {
      store.transaction(() => store.webSessions.extend(digest, now + policy.idleMs));
      session.expires_at = Math.min(now + policy.idleMs, session.hard_expires_at);
    }
    ctx.state.webSession = session;
    ctx.state.sessionToken = token;
    return void (await next());
  };
}

/** The session of a request behind sessionAuth; a route that forgot it fails loudly here. */
export function sessionOf(ctx: { state: AppState }): WebSessionRow {
  const session = ctx.state.webSession;
  if (session === undefined) throw new Error('route is not behind sessionAuth');
  return session;
}

/** The session of a request behind sessionAuth as its page reads it: the CSRF token and the idle end. */
export function presentSession(ctx: { state: AppState }): OpenedSession {
  const session = sessionOf(ctx);
  return { csrf_token: csrfTokenOf(ctx.state.sessionToken!), expires_at: new Date(session.expires_at).toISOString() };
}

/** Whether the request carries this face's session cookie (a value, valid or not). */
export function hasSessionCookie(ctx: AppContext, policy: SessionPolicy): boolean {
  return (readCookie(ctx.get('cookie'), policy.cookieName) ?? '') !== '';
}

/**
 * The requests that open a session have no session to carry a CSRF token yet. They must be JSON
 * (a cross-site form cannot send it without a CORS preflight, which the daemon never answers) and,
 * when the browser names their origin, come from this very origin: the origin of
 * GATEWAY_PUBLIC_URL when it is set (scheme, host and port, as configured: a Host header can be
 * anything a client sends), else the request's own host.
 */
export function requireSameOriginJson(ctx: AppContext, publicOrigin: string | null = null): void {
  if (!ctx.request.is('json')) throw new UnsupportedMediaType('Send the body as application/json.');
  const site = ctx.get('sec-fetch-site');
  if (site !== '' && site !== 'same-origin' && site !== 'none')
    throw new Forbidden('A session can only be opened from the page of this gateway.');
  const origin = ctx.get('origin');
  if (origin === '') return;
  const same =
    publicOrigin !== null ? parsedOrigin(origin)?.origin === publicOrigin : parsedOrigin(origin)?.host === ctx.host;
  if (!same) throw new Forbidden('A session can only be opened from the page of this gateway.');
}

function parsedOrigin(origin: string): URL | null {
  try {
    return new URL(origin);
  } catch {
    return null;
  }
}

function setCookie(ctx: AppContext, policy: SessionPolicy, value: string, maxAgeSeconds?: number): void {
  const parts = [`${policy.cookieName}=${value}`, `Path=${policy.cookiePath}`, 'HttpOnly', 'SameSite=Strict'];
  if (policy.secure) parts.push('Secure');
  // No Max-Age on a live session: the cookie goes when the browser closes, the server ends it sooner.
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  ctx.append('set-cookie', parts.join('; '));
}

/** The value of one cookie of a Cookie header. */
export function readCookie(header: string, name: string): string | undefined {
  for (const pair of header.split(';')) {
    const index = pair.indexOf('=');
    if (index > 0 && pair.slice(0, index).trim() === name) return pair.slice(index + 1).trim();
  }
  return undefined;
}
