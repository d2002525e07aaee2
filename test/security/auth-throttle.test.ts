// Guessing the admin token (issue 51 item 1, src/http/auth-throttle.ts): wrong tokens are counted
// on every path taking it (admin API, /metrics, console login), per address and in total; past
// the free ones an address waits, longer each time, with 429 and Retry-After, whatever it sends;
// the global ceiling only paces. Wrong API tokens are counted too. Both show in /metrics.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const ADMIN_TOKEN = 'admin-token-of-the-throttle-tests-01';
const METRICS_TOKEN = 'metrics-token-of-the-throttle-test-01';
const TOO_MANY = {
  errors: [
    { status: 429, code: 'too_many_requests', title: 'Too many requests error', detail: 'Please wait for 1 seconds' },
  ],
};

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const bearer = (token: string) => ({ token: null, headers: { authorization: `Bearer ${token}` } });
const expectStatus = (answer: { status: number; text: string }, status: number) =>
  expect(answer.status, answer.text).toBe(status);
/** One sample of the scrape, 0 when absent. */
const sample = (text: string, series: string) =>
  Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

describe('wrong admin tokens', () => {
  it('thirty on /admin/* and /metrics meet a 429, the right token included, counted per path in the metrics', async () => {
    gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      const path = i % 2 === 0 ? '/admin/deliveries' : '/metrics';
      statuses.push((await gw.request('GET', path, bearer(`wrong-admin-token-${i}`))).status);
    }
    // 10 free wrong tokens, the 11th starts a wait of 1 s (then 2 s, 4 s, ...): the rest meet 429.
    expect(statuses.slice(0, 11)).toEqual(Array(11).fill(401));
    expect(statuses.slice(11)).toEqual(Array(19).fill(429));
    // While the address waits, the right token is not even compared: the wait tells a guesser nothing.
    for (const path of ['/admin/deliveries', '/metrics']) {
      const refused = await gw.request('GET', path, bearer(ADMIN_TOKEN));
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        errors: [{ ...TOO_MANY.errors[0], detail: expect.stringMatching(/^Please wait for \d+ seconds$/) }],
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(2);
    }
    // The console's login counts into the same wait.
    const login = await gw.request('POST', '/console/session', { token: null, json: { token: ADMIN_TOKEN } });
    expect(login.status).toBe(429);

    // Once the wait is over (2 s at most after the 11th), the right token passes and clears the count.
    // Waited out on the real clock on purpose: a request while it runs would be counted too.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const scrape = await gw.request('GET', '/metrics', bearer(ADMIN_TOKEN));
    expect(scrape.status).toBe(200);
    expect(sample(scrape.text, 'gateway_auth_failures_total{credential="admin",face="admin"}')).toBe(6);
    expect(sample(scrape.text, 'gateway_auth_failures_total{credential="admin",face="metrics"}')).toBe(5);
    expect(sample(scrape.text, 'gateway_auth_throttled_total{face="admin"}')).toBe(10);
    expect(sample(scrape.text, 'gateway_auth_throttled_total{face="metrics"}')).toBe(11);
    expect(sample(scrape.text, 'gateway_auth_throttled_total{face="console"}')).toBe(1);
    expect(gw.logText()).toContain('wrong admin token');
    expect(gw.logText()).not.toContain('wrong-admin-token-');
  });

  it('the wait grows with each further wrong token', async () => {
    gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, GATEWAY_ADMIN_AUTH_FREE_FAILURES: '1' });
    const wrong = () => gw!.request('GET', '/admin/deliveries', bearer('wrong-admin-token'));
    expectStatus(await wrong(), 401); // the one free wrong token
    for (const seconds of [1, 2, 4]) {
      expectStatus(await wrong(), 401); // counted: the address waits `seconds` from now
      const refused = await wrong();
      expect(refused.body).toEqual({
        errors: [{ ...TOO_MANY.errors[0], detail: `Please wait for ${seconds} seconds` }],
      });
      expect(refused.headers['retry-after']).toBe(String(seconds));
      // The wait is waited out on the real clock on purpose: it is what is tested.
      if (seconds < 4) await new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 50));
    }
  }, 20_000);

  it('a metrics token of its own is throttled the same way', async () => {
    gw = await startTestGateway({
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_METRICS_TOKEN: METRICS_TOKEN,
      GATEWAY_ADMIN_AUTH_FREE_FAILURES: '2',
    });
    const statuses = [];
    for (let i = 0; i < 4; i += 1)
      statuses.push((await gw.request('GET', '/metrics', bearer(`wrong-metrics-${i}`))).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('past the global ceiling every check is paced, not refused: the right token still passes, only later', async () => {
    gw = await startTestGateway({
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_ADMIN_AUTH_FREE_FAILURES: '1000',
      GATEWAY_ADMIN_AUTH_GLOBAL_FAILURES: '3',
    });
    for (let i = 0; i < 4; i += 1)
      expect((await gw.request('GET', '/admin/deliveries', bearer(`wrong-${i}`))).status).toBe(401);
    // Ten checks at once, the right token among them: all are answered, at 5 a second.
    const began = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        gw!.request('GET', '/admin/deliveries', bearer(i === 9 ? ADMIN_TOKEN : `wrong-again-${i}`)),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([...Array(9).fill(401), 200]);
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);
    const scrape = await gw.request('GET', '/metrics', bearer(ADMIN_TOKEN));
    expect(sample(scrape.text, 'gateway_auth_paced_total')).toBeGreaterThanOrEqual(11);
  });
});

describe('wrong API tokens', () => {
  it('are counted in the metrics, and never make the right one wait', async () => {
    gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    for (let i = 0; i < 25; i += 1)
      expect((await gw.request('GET', '/p1/companies', { token: `gwk_wrong-${i}` })).status).toBe(401);
    expect((await gw.request('GET', '/p1/companies')).status).toBe(200);
    const scrape = await gw.request('GET', '/metrics', bearer(ADMIN_TOKEN));
    expect(sample(scrape.text, 'gateway_auth_failures_total{credential="api",face="api"}')).toBe(25);
  });
});
