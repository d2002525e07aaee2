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

describe('where the token is read', () => {
  it('accepts the X-Private-Api-Token header', async () => {
    expect((await gw.request('GET', '/p1/companies')).status).toBe(200);
  });

  it('accepts the private_api_token query parameter', async () => {
    const res = await gw.request('GET', `/p1/companies?private_api_token=${encodeURIComponent(gw.token)}`, {
      token: null,
    });
    expect(res.status).toBe(200);
  });

  it('accepts the private_api_token field of a JSON body, and does not treat it as input', async () => {
    const res = await gw.request('POST', '/p1/companies', {
      token: null,
      json: { private_api_token: gw.token, name: 'Json body' },
    });
    expect(res.status).toBe(201);
  });

  it('accepts the private_api_token field of a form body', async () => {
    const form = new URLSearchParams({ private_api_token: gw.token, name: 'Form body' });
    const res = await gw.request('POST', '/p1/companies', { token: null, form });
    expect(res.status).toBe(201);
  });

  it('accepts a JSON body token on GET, as the contract samples send', async () => {
    const res = await gw.request('GET', '/p1/companies', {
      token: null,
      json: { private_api_token: gw.token, per: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.companies).toHaveLength(1);
  });

  it('prefers the header: a wrong header token is refused even with a right body token', async () => {
    const res = await gw.request('POST', '/p1/companies', {
      token: 'gwk_wrong',
      json: { private_api_token: gw.token, name: 'x' },
    });
    expectErrorShape(res, 401, 'unauthorized');
  });

  it('answers 401, not 400, when the body that should hold the token is malformed', async () => {
    const res = await gw.request('POST', '/p1/companies', { token: null, json: '{"private_api_token": ' });
    expect(expectErrorShape(res, 401, 'unauthorized')[0]!.detail).toMatch(/could not be read/);
  });

  it('refuses a token given as a non-string body field', async () => {
    const res = await gw.request('POST', '/p1/companies', {
      token: null,
      json: { private_api_token: 12345, name: 'x' },
    });
    expectErrorShape(res, 401, 'unauthorized');
  });
});

describe('accounts are isolated', () => {
  it("answers another account's company exactly like a missing one", async () => {
    const other = await gw.createAccount('intruder');
    const own = await gw.request('POST', '/p1/companies', { token: other, json: { name: 'Theirs' } });
    expect(own.status).toBe(201);

    const list = await gw.request('GET', '/p1/companies', { token: other });
    expect(list.body.data.companies.map((c: { name: string }) => c.name)).toEqual(['Theirs']);

    const foreign = await gw.request('PUT', `/p1/companies/${companyId}`, { token: other, json: { name: 'hijack' } });
    const missing = await gw.request('PUT', '/p1/companies/999999', { token: other, json: { name: 'hijack' } });
    expectErrorShape(foreign, 404, 'not_found');
    expectErrorShape(missing, 404, 'not_found');
    expect(foreign.body.errors[0].detail.replace(String(companyId), 'N')).toBe(
      missing.body.errors[0].detail.replace('999999', 'N'),
    );

    for (const [method, path] of [
      ['GET', `/p1/companies/${companyId}/channels`],
      ['POST', `/p1/companies/${companyId}/channels`],
      ['PUT', `/p1/companies/${companyId}/channels/${channelId}`],
      ['DELETE', `/p1/companies/${companyId}/channels/${channelId}`],
    ] as const) {
      const res = await gw.request(method, path, {
        token: other,
        json: method === 'GET' || method === 'DELETE' ? undefined : { provider: 'chat_c', token: 't' },
      });
      expectErrorShape(res, 404, 'not_found');
    }
    const channels = await gw.request('GET', `/p1/companies/${companyId}/channels`);
    expect(channels.body.data.channels).toEqual([{ external_id: channelId, provider: 'chat_b' }]);
  });
});

describe('tokens at rest and in the log', () => {
  it('stores tokens only as digests and never logs them', async () => {
    const rows = gw.gateway.store.db.prepare('SELECT token_sha256 FROM api_tokens').all() as { token_sha256: string }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.token_sha256).toMatch(/^[0-9a-f]{64}$/);
    const dump = JSON.stringify(gw.gateway.store.db.prepare('SELECT * FROM api_tokens').all());
    expect(dump).not.toContain(gw.token);

    await gw.request('GET', `/p1/companies?private_api_token=${encodeURIComponent(gw.token)}`, { token: null });
    expect(gw.logText()).toContain('"path":"/p1/companies"');
    expect(gw.logText()).not.toContain(gw.token);
    expect(gw.logText()).not.toContain('bot-secret');
  });
});
