import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/http/web-assets.js';
import { expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';

// The console's session: the admin token exchanged for a cookie, the CSRF token every change
// needs, its end, and how it opens the admin API (docs/console.md). Through HTTP alone, so it runs
// against a 3-shard cluster too, whose front checks the session at the shard that keeps it; what
// the store keeps of a session, and a session aged or left behind by a new admin token, are in
// console-session-store.test.ts.

const ADMIN_TOKEN = 'admin-token-of-the-console-tests-0123';
let gw: TestGateway;
/** A company of the gateway: a bulk replay through a cluster's front names one. */
let company: number;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  company = await newCompany(gw);
});
afterAll(() => gw.close());

async function login(): Promise<{ cookie: string; token: string; csrf: string }> {
  const res = await gw.request('POST', '/console/session', { token: null, json: { token: ADMIN_TOKEN } });
  expect(res.status).toBe(201);
  const setCookie = String(res.headers['set-cookie']);
  const token = /gw_console=([^;]+)/.exec(setCookie)![1]!;
  return { cookie: `gw_console=${token}`, token, csrf: res.body.session.csrf_token };
}

describe('logging in', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie and answers the CSRF token', async () => {
    const res = await gw.request('POST', '/console/session', { token: null, json: { token: ADMIN_TOKEN } });
    expect(res.status).toBe(201);
    const cookies = res.headers['set-cookie']!;
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/^gw_console=gws_[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    const token = /gw_console=([^;]+)/.exec(cookies[0]!)![1]!;
    expect(res.body.session).toEqual({
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
    });
    expect(res.body.session.csrf_token).not.toBe(token);
    expect(Date.parse(res.body.session.expires_at) - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(Date.parse(res.body.session.expires_at) - Date.now()).toBeLessThanOrEqual(30 * 60_000);
  });

  it('refuses a wrong token (401), a missing one (422), a form post (415) and a post from another site (403)', async () => {
    expect(
      expectErrorShape(
        await gw.request('POST', '/console/session', { token: null, json: { token: 'not-it' } }),
        401,
        'unauthorized',
      )[0]!.detail,
    ).toMatch(/invalid/);
    expectErrorShape(await gw.request('POST', '/console/session', { token: null, json: {} }), 422, 'validation_failed');
    expectErrorShape(
      await gw.request('POST', '/console/session', { token: null, json: { token: 42 } }),
      422,
      'validation_failed',
    );
    expectErrorShape(
      await gw.request('POST', '/console/session', { token: null, form: `token=${ADMIN_TOKEN}` }),
      415,
      'unsupported_media_type',
    );
    const crossSite = { token: null, json: { token: ADMIN_TOKEN } };
    expectErrorShape(
      await gw.request('POST', '/console/session', { ...crossSite, headers: { origin: 'https://evil.example' } }),
      403,
      'forbidden',
    );
    expectErrorShape(
      await gw.request('POST', '/console/session', { ...crossSite, headers: { 'sec-fetch-site': 'cross-site' } }),
      403,
      'forbidden',
    );
    expectErrorShape(
      await gw.request('POST', '/console/session', {
        token: null,
        body: '{"token":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'bad_request',
    );
  });

  it('never writes the admin token or the session token to the log', async () => {
    const { token } = await login();
    expect(gw.logText()).toContain('console session opened');
    expect(gw.logText()).not.toContain(ADMIN_TOKEN);
    expect(gw.logText()).not.toContain(token);
  });
});

describe('the session opens the admin API', () => {
  it('reads with the cookie alone, and changes only with the CSRF token', async () => {
    const { cookie, csrf } = await login();
    expect((await gw.request('GET', '/admin/deliveries', { token: null, headers: { cookie } })).status).toBe(200);
    const replay = { token: null, json: { status: 'failed', company_id: company } };
    expect(
      expectErrorShape(
        await gw.request('POST', '/admin/replays', { ...replay, headers: { cookie } }),
        403,
        'forbidden',
      )[0]!.detail,
    ).toMatch(/CSRF/);
    expectErrorShape(
      await gw.request('POST', '/admin/replays', { ...replay, headers: { cookie, 'x-csrf-token': `${csrf}x` } }),
      403,
      'forbidden',
    );
    const { csrf: otherSessionsCsrf } = await login();
    expectErrorShape(
      await gw.request('POST', '/admin/replays', { ...replay, headers: { cookie, 'x-csrf-token': otherSessionsCsrf } }),
      403,
      'forbidden',
    );
    expect(
      (await gw.request('POST', '/admin/replays', { ...replay, headers: { cookie, 'x-csrf-token': csrf } })).status,
    ).toBe(202);
  });

  it('answers the same CSRF token to GET /console/session, and refuses an unknown cookie', async () => {
    const { cookie, csrf } = await login();
    expect(
      (await gw.request('GET', '/console/session', { token: null, headers: { cookie } })).body.session.csrf_token,
    ).toBe(csrf);
    const forged = { cookie: 'gw_console=gws_forged0000000000000000000000000000000000000' };
    expect(
      expectErrorShape(
        await gw.request('GET', '/admin/deliveries', { token: null, headers: forged }),
        401,
        'unauthorized',
      )[0]!.detail,
    ).toMatch(/ended/);
    expectErrorShape(
      await gw.request('GET', '/console/session', { token: null, headers: forged }),
      401,
      'unauthorized',
    );
  });

  it('does not open the routes that take the bearer token only, nor the REST API', async () => {
    const { cookie } = await login();
    expectErrorShape(await gw.request('GET', '/metrics', { token: null, headers: { cookie } }), 401, 'unauthorized');
    expectErrorShape(
      await gw.request('GET', '/admin/channels/1/callback', { token: null, headers: { cookie } }),
      401,
      'unauthorized',
    );
    expectErrorShape(
      await gw.request('GET', '/p1/companies', { token: null, headers: { cookie } }),
      401,
      'unauthorized',
    );
  });
});

describe('the end of a session', () => {
  it('ends at log out: the cookie is cleared and opens nothing after', async () => {
    const { cookie, csrf } = await login();
    expectErrorShape(
      await gw.request('DELETE', '/console/session', { token: null, headers: { cookie } }),
      403,
      'forbidden',
    );
    const out = await gw.request('DELETE', '/console/session', {
      token: null,
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(out.status).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/^gw_console=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
    expectErrorShape(
      await gw.request('GET', '/admin/deliveries', { token: null, headers: { cookie } }),
      401,
      'unauthorized',
    );
  });
});

describe('pages', () => {
  it('sends a browser without a session to the login page, and serves the console with one', async () => {
    const away = await gw.request('GET', '/console', { token: null });
    expect(away.status).toBe(303);
    expect(away.headers.location).toBe('/console/login');
    const { cookie } = await login();
    const page = await gw.request('GET', '/console', { token: null, headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<script type="module" src="/console/assets/app.js"></script>');
  });

  it('serves every page and asset with the strict Content-Security-Policy and no inline script or style', async () => {
    for (const path of ['/console/login', '/console/assets/app.js', '/assets/base.css', '/assets/ui.js']) {
      const res = await gw.request('GET', path, { token: null });
      expect(res.status, path).toBe(200);
      expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      if (path.endsWith('.js'))
        expect(res.text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
      if (path === '/console/login') expect(res.text).not.toMatch(/<script>|<style|style="/);
    }
    expect(CONTENT_SECURITY_POLICY).toMatch(/^default-src 'self'; script-src 'self'; style-src 'self';/);
    expectErrorShape(await gw.request('GET', '/console/assets/..%2Fpackage.json', { token: null }), 404, 'not_found');
    expectErrorShape(await gw.request('GET', '/console/assets/nothing.js', { token: null }), 404, 'not_found');
  });

  it('answers every route of the browser faces without a session with 401 (or the page that opens one), except the public ones', async () => {
    // The pages that open a session, and the code and styles of the pages (no data in them).
    const PUBLIC = new Set([
      'GET /assets/:file',
      'GET /console/login',
      'GET /console/assets/:file',
      'POST /console/session',
      'GET /portal/enter',
      'GET /portal/assets/:file',
      'POST /portal/session',
    ]);
    const routes = gw.webRoutes().map(({ method, path }) => `${method} ${path}`);
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /console',
        'GET /console/session',
        'DELETE /console/session',
        'GET /portal',
        'PATCH /portal/api/webhooks/:id',
      ]),
    );
    for (const route of routes.filter((r) => !PUBLIC.has(r))) {
      const [method, path] = route.split(' ') as [string, string];
      const res = await gw.request(method, path.replace(/:[A-Za-z]+/g, '1'), {
        token: null,
        json: method === 'GET' ? undefined : {},
      });
      if (route === 'GET /console' || route === 'GET /portal') expect(res.status, route).toBe(303);
      else expectErrorShape(res, 401, 'unauthorized');
    }
  });
});

describe('guessing the admin token', () => {
  // The throttle is shared with the admin API and /metrics: test/security/auth-throttle.test.ts.
  const FREE = 10; // GATEWAY_ADMIN_AUTH_FREE_FAILURES' default

  it(`makes an address wait after ${FREE} wrong tokens, the right one included, with Retry-After`, async () => {
    const guarded = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    try {
      const attempt = (token: string) => guarded.request('POST', '/console/session', { token: null, json: { token } });
      // A good login clears the count: the failures before it do not add up with the ones after.
      for (let i = 0; i < FREE - 1; i++) expectErrorShape(await attempt(`guess-${i}`), 401, 'unauthorized');
      expect((await attempt(ADMIN_TOKEN)).status).toBe(201);
      for (let i = 0; i < FREE + 1; i++) expectErrorShape(await attempt(`guess-${i}`), 401, 'unauthorized');
      // The 11th wrong token started a wait of one second: nothing is compared while it lasts.
      for (const token of ['guess-again', ADMIN_TOKEN]) {
        const refused = await attempt(token);
        expect(refused.body).toEqual({
          errors: [
            {
              status: 429,
              code: 'too_many_requests',
              title: 'Too many requests error',
              detail: 'Please wait for 1 seconds',
            },
          ],
        });
        expect(refused.headers['retry-after']).toBe('1');
        expect(refused.headers['set-cookie']).toBeUndefined();
      }
      expect(guarded.logText()).toContain('console login with a wrong admin token');
      expect(guarded.logText()).not.toContain('guess-');
    } finally {
      await guarded.close();
    }
  });
});
