// The company portal's links and the sessions they open, through HTTP alone (so it runs against a
// cluster too): who may ask for a link, how long it lasts, and that it opens one session, once,
// from the gateway's own origin, with neither the link nor the session in the log. The isolation
// of a session is in portal-isolation.test.ts, what only the store shows in portal-link-rows.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { portalLink, withoutToken } from '../helpers/portal-session.js';
import { newCompany } from '../helpers/seed.js';

let gw: TestGateway;
let companyA: number;

const call = (method: string, path: string, options: Parameters<typeof withoutToken>[3] = {}) =>
  withoutToken(gw, method, path, options);

beforeAll(async () => {
  gw = await startTestGateway();
  companyA = await newCompany(gw, { name: 'A' });
});
afterAll(async () => {
  await gw?.close();
});

describe('portal links', () => {
  it("answers a link into the company's portal, valid for ten minutes", async () => {
    const res = await call('POST', `/api/p2/companies/${companyA}/portal_sessions`, { token: gw.token });
    expect(res.status).toBe(201);
    expect(res.body.portal_session).toEqual({
      company_id: companyA,
      url: expect.stringMatching(new RegExp(`^${gw.baseUrl}/portal/enter#gwp_[A-Za-z0-9_-]{43}$`)),
      expires_at: expect.any(String),
    });
    const ttl = Date.parse(res.body.portal_session.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000);
  });

  it("refuses a link to another account's company, an unknown one, and a caller without a valid API token", async () => {
    const other = await gw.createAccount('other');
    const path = `/api/p2/companies/${companyA}/portal_sessions`;
    expectErrorShape(await call('POST', path, { token: other }), 404, 'not_found');
    expectErrorShape(
      await call('POST', '/api/p2/companies/999999/portal_sessions', { token: gw.token }),
      404,
      'not_found',
    );
    expectErrorShape(
      await call('POST', '/api/p2/companies/abc/portal_sessions', { token: gw.token }),
      404,
      'not_found',
    );
    expectErrorShape(await call('POST', path), 401, 'unauthorized');
    expectErrorShape(await call('POST', path, { token: 'gwk_wrong' }), 401, 'unauthorized');
  });

  it('opens one session, once: a second use and a made-up one answer 401', async () => {
    const token = await portalLink(gw, companyA);
    const first = await call('POST', '/portal/session', { json: { token } });
    expect(first.status).toBe(201);
    expect(first.body.company).toEqual({ id: companyA, name: 'A' });
    expect(first.headers['set-cookie']).toEqual([
      expect.stringMatching(/^gw_portal=gws_[A-Za-z0-9_-]{43}; Path=\/portal; HttpOnly; SameSite=Strict$/),
    ]);
    expect(
      expectErrorShape(await call('POST', '/portal/session', { json: { token } }), 401, 'unauthorized')[0]!.detail,
    ).toMatch(/used already or expired/);
    expectErrorShape(await call('POST', '/portal/session', { json: { token: 'gwp_made_up' } }), 401, 'unauthorized');
    expectErrorShape(await call('POST', '/portal/session', { json: {} }), 422, 'validation_failed');
    expectErrorShape(
      await call('POST', '/portal/session', {
        json: { token: await portalLink(gw, companyA) },
        headers: { origin: 'https://evil.example' },
      }),
      403,
      'forbidden',
    );
    expect(gw.logText()).not.toContain(token);
    expect(gw.logText()).not.toContain(/gw_portal=([^;]+)/.exec(String(first.headers['set-cookie']))![1]!);
  });
});
