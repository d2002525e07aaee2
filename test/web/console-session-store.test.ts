import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';

// What the store keeps of a console session, and the ends only time or another admin token bring:
// read and aged in one daemon's web_sessions rows, so single-daemon only (vitest.cluster.config.ts).
// The session over HTTP, against a cluster too: console-session.test.ts.

const ADMIN_TOKEN = 'admin-token-of-the-console-tests-0123';
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
});
afterAll(() => gw.close());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function login(target = gw): Promise<{ cookie: string; token: string }> {
  const res = await target.request('POST', '/console/session', { token: null, json: { token: ADMIN_TOKEN } });
  expect(res.status).toBe(201);
  const token = /gw_console=([^;]+)/.exec(String(res.headers['set-cookie']))![1]!;
  return { cookie: `gw_console=${token}`, token };
}

const agedTo = (expiresAt: number, token: string) =>
  gw.gateway.store.db
    .prepare('UPDATE web_sessions SET expires_at = ? WHERE token_sha256 = ?')
    .run(expiresAt, sha256(token));

describe('what the store keeps of a session', () => {
  it("keeps the session token's digest and a keyed digest of the admin token, never either token", async () => {
    const { token } = await login();
    const rows = gw.gateway.store.db.prepare('SELECT * FROM web_sessions').all() as Record<string, unknown>[];
    const row = rows.find((r) => r.token_sha256 === sha256(token) && r.face === 'console');
    // The admin token's digest is keyed (an HMAC under a key of the process), not its plain SHA-256.
    expect(row?.credential_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.credential_sha256).not.toBe(sha256(ADMIN_TOKEN));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(rows)).not.toContain(ADMIN_TOKEN);
  });
});

describe('the end of a session', () => {
  it('ends when it expires, and when the admin token it was opened with is no longer the configured one', async () => {
    const first = await login();
    agedTo(Date.now() - 1, first.token);
    expectErrorShape(
      await gw.request('GET', '/admin/deliveries', { token: null, headers: { cookie: first.cookie } }),
      401,
      'unauthorized',
    );
    const second = await login();
    gw.gateway.store.db
      .prepare('UPDATE web_sessions SET credential_sha256 = ? WHERE token_sha256 = ?')
      .run(sha256('the-admin-token-before'), sha256(second.token));
    expectErrorShape(
      await gw.request('GET', '/admin/deliveries', { token: null, headers: { cookie: second.cookie } }),
      401,
      'unauthorized',
    );
  });

  it('moves its idle end out when used, never past its longest lifetime', async () => {
    const { cookie, token } = await login();
    const row = () =>
      gw.gateway.store.db
        .prepare('SELECT expires_at, hard_expires_at FROM web_sessions WHERE token_sha256 = ?')
        .get(sha256(token)) as { expires_at: number; hard_expires_at: number };
    agedTo(Date.now() + 60_000, token);
    await gw.request('GET', '/console/session', { token: null, headers: { cookie } });
    expect(row().expires_at - Date.now()).toBeGreaterThan(29 * 60_000);
    gw.gateway.store.db
      .prepare('UPDATE web_sessions SET expires_at = ?, hard_expires_at = ? WHERE token_sha256 = ?')
      .run(Date.now() + 60_000, Date.now() + 120_000, sha256(token));
    await gw.request('GET', '/console/session', { token: null, headers: { cookie } });
    expect(row().expires_at).toBe(row().hard_expires_at);
  });
});

describe('guessing the admin token', () => {
  const FREE = 10; // GATEWAY_ADMIN_AUTH_FREE_FAILURES' default

  it('stores no session for a wrong token, nor for the right one while the address waits', async () => {
    const guarded = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    try {
      const attempt = (token: string) => guarded.request('POST', '/console/session', { token: null, json: { token } });
      await login(guarded);
      for (let i = 0; i < FREE + 1; i++) expectErrorShape(await attempt(`guess-${i}`), 401, 'unauthorized');
      expectErrorShape(await attempt(ADMIN_TOKEN), 429, 'too_many_requests');
      expect(
        guarded.gateway.store.db.prepare("SELECT count(*) AS n FROM web_sessions WHERE face = 'console'").get(),
      ).toEqual({ n: 1 });
    } finally {
      await guarded.close();
    }
  });
});
