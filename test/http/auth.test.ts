// Every route of the daemon's router refuses a caller without a valid token (the routes registered,
// not only the documented ones), /healthz stays open with the core's own health, and tokens rest as
// digests. Where the token is read and how accounts are kept apart, through HTTP alone, are in
// test/http/api-tokens.test.ts, which runs against a cluster too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/engine/migrate.js';
import { expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let companyId: number;
let channelId: number;

/** With it configured the admin API is mounted, so the walk covers its routes too (admin-token rule). */
const ADMIN_TOKEN = 'admin-token-of-the-auth-walk-0123';

beforeAll(async () => {
  // One wrong admin token per admin route: more than the throttle lets through (test/security/auth-throttle.test.ts).
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, GATEWAY_ADMIN_AUTH_FREE_FAILURES: '1000' });
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Owned' } })).body.data.external_id;
  channelId = (
    await gw.request('POST', `/p1/companies/${companyId}/channels`, {
      json: { provider: 'chat_b', token: 'bot-secret' },
    })
  ).body.data.external_id;
});
afterAll(() => gw.close());

/** Routes that verify callers by other means than the API token. */
const PUBLIC = new Set([
  'GET /healthz',
  'HEAD /healthz',
  // The API description holds no account data.
  'GET /openapi.json',
  // An attachment's URL is its own capability (32 random bytes); clients and providers fetch it without a token.
  'GET /files/:storageKey/:fileName',
  // Provider callbacks are verified by their own signatures over the raw body (test/ingest proves each refusal).
  'POST /callbacks/:provider/:channelId',
  'GET /callbacks/chat_a_business/:channelId',
  // The OAuth redirect is proven by the auth's own state (test/compat/auths-v2.test.ts proves the refusals).
  'GET /callbacks/:provider/:channelId/oauth',
]);

function registeredRoutes(): { method: string; path: string }[] {
  return gw.gateway.router.stack.flatMap((layer) =>
    layer.methods
      .filter((method) => method !== 'HEAD')
      .map((method) => ({
        method,
        path: String(layer.path).replace(':companyId', String(companyId)).replace(':id', String(channelId)),
      })),
  );
}

describe('every API route requires a valid token', () => {
  it('knows the routes it walks', () => {
    const routes = registeredRoutes().map((r) => `${r.method} ${r.path}`);
    expect(routes).toContain('GET /p1/companies');
    expect(routes).toContain(`DELETE /p1/companies/${companyId}/channels/${channelId}`);
    expect(routes.length).toBeGreaterThanOrEqual(12);
    expect(routes).toContain('GET /admin/deliveries');
  });

  it('answers 401 without a token and with a wrong token on every route, changing nothing', async () => {
    const routes = registeredRoutes().filter((r) => !PUBLIC.has(`${r.method} ${r.path}`));
    for (const { method, path } of routes) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : { name: 'x', provider: 'chat_b', token: 'y' };
      const missing = await gw.request(method, path, { token: null, json: body });
      const [entry] = expectErrorShape(missing, 401, 'unauthorized');
      expect(missing.body, `${method} ${path}`).toEqual({
        errors: [{ status: 401, code: 'unauthorized', title: 'Unauthorized', detail: entry!.detail }],
      });
      // Admin routes (and /metrics, without its own token) take the admin bearer token instead; a
      // valid API token does not open them.
      const admin = path.startsWith('/admin/') || path === '/metrics';
      expect(entry!.detail).toMatch(admin ? /No admin token was provided/ : /No API token was provided/);

      const wrong = await gw.request(method, path, {
        token: admin ? gw.token : 'gwk_not-a-real-token',
        json: body,
        headers: admin ? { authorization: 'Bearer not-the-admin-token-0123' } : {},
      });
      expect(expectErrorShape(wrong, 401, 'unauthorized')[0]!.detail).toMatch(/invalid/);
    }
    const companies = await gw.request('GET', '/p1/companies');
    expect(companies.body.data.companies).toHaveLength(1);
    const channels = await gw.request('GET', `/p1/companies/${companyId}/channels`);
    expect(channels.body.data.channels).toEqual([{ external_id: channelId, provider: 'chat_b' }]);
  });

  it('leaves health open', async () => {
    const health = await gw.request('GET', '/healthz', { token: null });
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: 'ok',
      store: { status: 'ok', schema_version: MIGRATIONS.at(-1)!.version, journal_mode: 'wal' },
      outbox: { pending: expect.any(Number), oldest_pending_age_ms: expect.toBeOneOf([null, expect.any(Number)]) },
    });
  });
});

describe('tokens at rest', () => {
  // That they never reach the log: test/http/api-tokens.test.ts.
  it('stores tokens only as digests', async () => {
    const rows = gw.gateway.store.db.prepare('SELECT token_sha256 FROM api_tokens').all() as { token_sha256: string }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.token_sha256).toMatch(/^[0-9a-f]{64}$/);
    const dump = JSON.stringify(gw.gateway.store.db.prepare('SELECT * FROM api_tokens').all());
    expect(dump).not.toContain(gw.token);
  });
});
