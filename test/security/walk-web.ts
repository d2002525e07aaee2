// The console's and the portal's routes in the cross-account walk, read from the web router: without
// a session, with a portal session of the caller (also presented as a console cookie), against the
// other account's ids.
import { expect } from 'vitest';
import type { TestGateway, TestResponse, RegisteredRoute } from '../helpers/gateway.js';
import type { AccountResources } from './walk-accounts.js';
import { pathKind, valueOf } from './walk-operations.js';
import { expectNothingOf, expectRefusal } from './walk-requests.js';

/** Pages and assets: the same bytes for everyone, no data in them. */
const isStatic = (route: RegisteredRoute) => route.path.includes(':file') || /\/(enter|login)$/.test(route.path);

/** Portal writes that name no id: they act on the session's own company and session. */
const OWN_SESSION_WRITES = new Map([
  ['POST /portal/api/webhooks', "adds an endpoint to the session's company"],
  ['DELETE /portal/session', 'ends the caller its own session'],
]);

/** Portal inputs that carry an id: the other account's goes in. */
const PORTAL_INPUTS: Record<string, (target: AccountResources) => Record<string, unknown>> = {
  'POST /portal/api/replays': (target) => ({ endpoint_id: target.webhook }),
  'GET /portal/api/deliveries': (target) => ({ endpoint_id: target.webhook }),
};

/** The live event stream: a 200 lasts until the client goes, so only its opening is read. */
const isEventStream = (route: RegisteredRoute) => route.path.endsWith('/events/stream');

async function call(
  gw: TestGateway,
  route: RegisteredRoute,
  path: string,
  headers: Record<string, string>,
  json?: unknown,
): Promise<TestResponse> {
  const abort = new AbortController();
  const res = await fetch(`${gw.baseUrl}${path}`, {
    method: route.method,
    headers: json === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
    redirect: 'manual',
    signal: abort.signal,
  });
  if (isEventStream(route) && res.status === 200) {
    // Its first write (`: stream open`), then the client goes: the stream ends with it.
    const first = await res.body!.getReader().read();
    abort.abort();
    const text = new TextDecoder().decode(first.value);
    return { status: res.status, headers: Object.fromEntries(res.headers), text, body: undefined };
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: Object.fromEntries(res.headers), text, body };
}

/** The route's path with every parameter set to the target's id of its kind. */
function targetPath(route: RegisteredRoute, target: AccountResources): string {
  return route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    const kind = pathKind(route.path.replace(/:([A-Za-z]+)/g, '{$1}'), name);
    return encodeURIComponent(String(valueOf(target, kind)));
  });
}

/**
 * Without a session, with the caller's portal cookie, and with that token as a console cookie: the
 * console's routes refuse (its shell sends the browser to the login); the portal's refuse without a
 * session, and with the caller's session answer 404 for every id of the target and show nothing of it.
 */
export async function walkWebRoutes(gw: TestGateway, caller: AccountResources, target: AccountResources) {
  const routes = gw.webRoutes();
  expect(routes.filter((r) => r.path.startsWith('/portal/api/')).length).toBeGreaterThanOrEqual(9);
  expect(routes.filter((r) => r.path.startsWith('/console')).length).toBeGreaterThanOrEqual(5);
  const portalSession = { cookie: caller.portal.cookie, 'x-csrf-token': caller.portal.csrf };
  const sessions: Record<string, Record<string, string>> = {
    'no session': {},
    "the caller's portal session": portalSession,
    "the caller's portal token as a console cookie": {
      cookie: `gw_console=${caller.portal.token}`,
      'x-csrf-token': caller.portal.csrf,
    },
  };
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    const path = isStatic(route) ? route.path.replace(':file', 'walk.js') : targetPath(route, target);
    if (isStatic(route)) {
      expectNothingOf(await call(gw, route, path, {}), target, key);
      continue;
    }
    for (const [name, headers] of Object.entries(sessions)) {
      const what = `${key} with ${name}`;
      const opens = route.path.startsWith('/portal') && headers === portalSession;
      if (opens && OWN_SESSION_WRITES.has(key)) continue;
      const input = PORTAL_INPUTS[key]?.(target);
      // Opening a session takes a link's token (portal) or the admin token (console): the target's
      // session token and the caller's API token are neither.
      const opening = route.method === 'POST' && route.path.endsWith('/session');
      const json = opening
        ? { token: route.path.startsWith('/portal') ? target.portal.token : caller.token }
        : route.method === 'GET'
          ? undefined
          : (input ?? {});
      const query =
        route.method === 'GET' && input !== undefined ? `?${new URLSearchParams(input as never).toString()}` : '';
      const res = await call(gw, route, `${path}${query}`, headers, json);
      expectNothingOf(res, target, what, `${path}${query} ${JSON.stringify(json ?? {})}`);
      if (route.path === '/console' || route.path === '/portal') {
        const page = route.path === '/console' ? '/console/login' : '/portal/enter';
        if (opens) expect(res.status, what).toBe(200);
        else expect([res.status, res.headers.location], what).toEqual([303, page]);
      } else if (!opens || opening) {
        expectRefusal(res, [401], what);
      } else if (route.path.includes(':') || (input !== undefined && route.method !== 'GET')) {
        expectRefusal(res, [404], what);
      } else {
        expect(res.status, `${what}: ${res.text}`).toBe(200);
        if (isEventStream(route)) expect(res.text, what).toBe(': stream open\n\n');
      }
    }
  }
}
