// A company's portal over plain HTTP, as its page uses it: a link made with an API token, the
// session the link opens (its cookie and CSRF token), and requests that carry no API token.
import { expect } from 'vitest';
import type { RequestOptions, TestGateway, TestResponse } from './gateway.js';

/** A portal session: the cookie header to send, the CSRF token of its changes and the raw session token. */
export interface PortalSession {
  cookie: string;
  csrf: string;
  token: string;
}

/** A request with no API token unless `options.token` names one (the portal's and the console's own routes). */
export function withoutToken(
  gw: TestGateway,
  method: string,
  path: string,
  options: Pick<RequestOptions, 'json' | 'headers' | 'body'> & { token?: string } = {},
): Promise<TestResponse> {
  return gw.request(method, path, { ...options, token: options.token ?? null });
}

/** A portal link of `companyId` made with `token`: the link's token, from its URL's fragment. */
export async function portalLink(gw: TestGateway, companyId: number, token = gw.token): Promise<string> {
  const res = await withoutToken(gw, 'POST', `/api/p2/companies/${companyId}/portal_sessions`, { token });
  expect(res.status, res.text).toBe(201);
  return new URL(res.body.portal_session.url).hash.slice(1);
}

/** Opens a portal session with a link's token. */
export async function enterPortal(gw: TestGateway, linkToken: string): Promise<PortalSession> {
  const res = await withoutToken(gw, 'POST', '/portal/session', { json: { token: linkToken } });
  expect(res.status, res.text).toBe(201);
  const token = /gw_portal=([^;]+)/.exec(String(res.headers['set-cookie']))![1]!;
  return { cookie: `gw_portal=${token}`, csrf: res.body.session.csrf_token, token };
}

/** A request of a portal session: its cookie and CSRF token. */
export function asSession(
  gw: TestGateway,
  session: PortalSession,
  method: string,
  path: string,
  json?: unknown,
): Promise<TestResponse> {
  return withoutToken(gw, method, path, { json, headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });
}
