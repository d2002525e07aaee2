// The front hands a console session's admin call to a shard with the admin token in its place
// (src/front/console-auth.ts), so its list of the routes a session opens must be the cores' own:
// one more on the front's side would open a route that takes the admin token alone (a channel's
// callback secrets) to a session. Every admin operation of the OpenAPI document is asked of one
// daemon with a live session and no token; the front must vouch exactly for those it accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOperations } from '../../src/openapi/operations/admin.js';
import { callsAdminWithConsoleSession } from '../../src/front/console-auth.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const ADMIN_TOKEN = 'admin-token-of-the-session-route-tests-0123';
let gw: TestGateway;
let session: { cookie: string; 'x-csrf-token': string };

beforeAll(async () => {
  // The sandbox on: its admin route exists, and must refuse the session like the others of its kind.
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, GATEWAY_SANDBOX: 'true' });
  const res = await gw.request('POST', '/console/session', { token: null, json: { token: ADMIN_TOKEN } });
  expect(res.status, res.text).toBe(201);
  const token = /gw_console=([^;]+)/.exec(String(res.headers['set-cookie']))![1]!;
  session = { cookie: `gw_console=${token}`, 'x-csrf-token': res.body.session.csrf_token as string };
});
afterAll(() => gw?.close());

describe("the front's list of the admin routes a console session opens", () => {
  it('is the routes a core opens to the session, and no other', async () => {
    expect(adminOperations.length).toBeGreaterThan(10);
    const opened: string[] = [];
    for (const op of adminOperations) {
      const path = op.path.replace(/:\w+/g, '1');
      const res = await gw.request(op.method.toUpperCase(), path, { token: null, headers: session, json: {} });
      // 401 is the refusal of the session; anything else (200, 404 for the id 1, 422) got past it.
      const acceptsSession = res.status !== 401;
      if (acceptsSession) opened.push(path);
      expect(
        callsAdminWithConsoleSession(path, { cookie: session.cookie }),
        `${op.method} ${path}: ${res.status}`,
      ).toBe(acceptsSession);
    }
    // Both kinds are there: the check above compared something.
    expect(opened.length).toBeGreaterThan(5);
    expect(opened.length).toBeLessThan(adminOperations.length);
  });
});
