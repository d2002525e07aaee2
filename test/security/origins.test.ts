// Origins from configuration (issue 51 item 5): with GATEWAY_PUBLIC_URL set, a session is opened
// only from that origin (not whatever the Host header says), and its cookies are Secure when it is
// https; behind GATEWAY_TRUST_PROXY proxies, the throttle counts each client's own address.
import { afterEach, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const ADMIN_TOKEN = 'admin-token-of-the-origin-tests-0123';
let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const login = (headers: Record<string, string>) =>
  gw!.request('POST', '/console/session', { token: null, json: { token: ADMIN_TOKEN }, headers });
const FORBIDDEN = {
  errors: [
    {
      status: 403,
      code: 'forbidden',
      title: 'Forbidden',
      detail: 'A session can only be opened from the page of this gateway.',
    },
  ],
};

describe('the login behind a TLS proxy (GATEWAY_PUBLIC_URL https)', () => {
  it('accepts the configured origin only, and sets Secure cookies', async () => {
    gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, GATEWAY_PUBLIC_URL: 'https://gw.example.com' });
    const ok = await login({ origin: 'https://gw.example.com', host: 'gw.example.com' });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.headers['set-cookie']).toEqual([
      expect.stringMatching(/^gw_console=gws_[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Secure$/),
    ]);
    // The proxy talks to the daemon over http at its own address: the Host it forwards does not matter.
    expect((await login({ origin: 'https://gw.example.com' })).status).toBe(201);
    // A page at the daemon's own address, at http, or at a look-alike is not the configured origin,
    // even when the Host header agrees with it.
    for (const origin of [
      `http://127.0.0.1:${gw.gateway.port}`,
      'http://gw.example.com',
      'https://gw.example.com:8443',
      'https://evil.example',
    ]) {
      const refused = await login({ origin, host: new URL(origin).host });
      expect(refused.body, origin).toEqual(FORBIDDEN);
    }
    // The portal's link exchange checks the same origin.
    const refused = await gw.request('POST', '/portal/session', {
      token: null,
      json: { token: 'gwp_x' },
      headers: { origin: `http://127.0.0.1:${gw.gateway.port}` },
    });
    expect(refused.body).toEqual(FORBIDDEN);
  });

  it('without a public URL, compares the origin with the request Host, and sets no Secure flag', async () => {
    gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    const ok = await login({ origin: `http://127.0.0.1:${gw.gateway.port}` });
    expect(ok.status).toBe(201);
    expect(ok.headers['set-cookie']![0]).not.toMatch(/Secure/);
    expectErrorShape(await login({ origin: 'https://gw.example.com' }), 403, 'forbidden');
  });
});

describe('GATEWAY_TRUST_PROXY', () => {
  it("counts wrong admin tokens per client as the proxy saw it: one client's guesses never make another wait", async () => {
    gw = await startTestGateway({
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_TRUST_PROXY: '1',
      GATEWAY_ADMIN_AUTH_FREE_FAILURES: '3',
    });
    const from = (client: string, token: string) =>
      gw!.request('GET', '/admin/deliveries', {
        token: null,
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client },
      });
    for (let i = 0; i < 4; i += 1) expect((await from('203.0.113.7', `wrong-${i}`)).status).toBe(401);
    expect((await from('203.0.113.7', ADMIN_TOKEN)).status).toBe(429);
    expect((await from('198.51.100.9', ADMIN_TOKEN)).status).toBe(200);
    // Only the nearest hop is trusted: an address the client put in front of it changes nothing.
    expect((await from('198.51.100.9, 203.0.113.7', ADMIN_TOKEN)).status).toBe(429);
  });

  it('is refused when it is not a small count', async () => {
    await expect(startTestGateway({ GATEWAY_TRUST_PROXY: 'yes' })).rejects.toThrow(
      /GATEWAY_TRUST_PROXY must be the number of proxies in front of the gateway, 0 to 10 \(got "yes"\)/,
    );
  });
});
