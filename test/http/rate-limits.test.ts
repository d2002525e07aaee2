// The API's rate limits as the hosted service documents them (pact-im/api-doc
// content/en/v2/rate-limits.md; the upload page's note, content/ru/v2/attachments/upload-attachment.md),
// at their default values, through the real HTTP API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_GROUPS } from '../../src/config/api-limits.js';
import { loadConfig } from '../../src/config/config.js';
import { problemsOf } from '../helpers/config-problems.js';
import { startTestGateway, type TestGateway, type TestResponse } from '../helpers/gateway.js';
import { seedCompany, seedConversation, type Seeded } from '../helpers/seed.js';

let gw: TestGateway;
let seeded: Seeded;

beforeAll(async () => {
  // The documented values, not the test helpers' thousandfold ones.
  gw = await startTestGateway({ GATEWAY_API_RATE_LIMIT_FACTOR: '1' });
  seeded = seedConversation(gw, await seedCompany(gw), { externalTimes: [1_700_000_000_000] });
});

afterAll(async () => {
  await gw?.close();
});

/** The documented 429: our one error shape with the page's title and its "Please wait for N seconds", and Retry-After N. */
function expectTooMany(res: TestResponse, maxSeconds: number): number {
  expect(res.status, res.text).toBe(429);
  const seconds = Number(res.headers['retry-after']);
  expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= maxSeconds).toBe(true);
  expect(res.body).toEqual({
    errors: [
      {
        status: 429,
        code: 'too_many_requests',
        title: 'Too many requests error',
        detail: `Please wait for ${seconds} seconds`,
      },
    ],
  });
  return seconds;
}

describe('pact-im/api-doc content/en/v2/rate-limits.md', () => {
  it('the defaults are the documented values', () => {
    const { apiLimits } = loadConfig({});
    const byName = Object.fromEntries(
      apiLimits.rateLimits.map((g) => [g.name, g.windows.map((w) => `${w.points}/${w.seconds}s`)]),
    );
    expect(byName).toEqual({
      'messages.list': ['20/60s'],
      'messages.show': ['20/60s'],
      'conversations.list': ['10/60s'],
      'conversations.show': ['10/60s'],
      'messages.send': ['5/1s', '30/60s'],
      'messages.write_first': ['5/1s', '30/60s'],
      'biz_templates.list': ['20/60s'],
      'attachments.upload': ['5/1s', '30/60s'],
    });
    expect(apiLimits.rateLimits).toEqual(RATE_LIMIT_GROUPS);
  });

  it('GET conversations: 10 a minute per account, then 429 with Retry-After; other groups and accounts keep their own', async () => {
    const list = (token = gw.token) =>
      gw.request('GET', `/api/p2/conversations?company_id=${seeded.companyId}`, { token });
    for (let i = 0; i < 10; i += 1) expect((await list()).status).toBe(200);
    expectTooMany(await list(), 60);
    // Another group (GET one conversation) has its own budget.
    expect(
      (await gw.request('GET', `/api/p2/conversations/${seeded.conversationId}?company_id=${seeded.companyId}`)).status,
    ).toBe(200);
    // Another account has its own budget.
    const other = await gw.createAccount('rate-other');
    const otherCompany = await seedCompany(gw, other, 'Other Co');
    expect(
      (await gw.request('GET', `/api/p2/conversations?company_id=${otherCompany.companyId}`, { token: other })).status,
    ).toBe(200);
  });

  it('GET messages of a conversation: 20 a minute', async () => {
    const path = `/api/p2/conversations/${seeded.conversationId}/messages?company_id=${seeded.companyId}`;
    for (let i = 0; i < 20; i += 1) expect((await gw.request('GET', path)).status).toBe(200);
    expectTooMany(await gw.request('GET', path), 60);
  });

  it('POST a message: at most 5 a second; a refused send writes nothing', async () => {
    const path = `/api/p2/conversations/${seeded.conversationId}/messages`;
    const count = () =>
      (
        gw.gateway.store.db
          .prepare('SELECT count(*) AS n FROM messages WHERE conversation_id = ?')
          .get(seeded.conversationId) as { n: number }
      ).n;
    const before = count();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        gw.request('POST', path, { json: { company_id: seeded.companyId, text: `burst ${i}` } }),
      ),
    );
    const created = answers.filter((r) => r.status === 201);
    const refused = answers.filter((r) => r.status === 429);
    expect(created).toHaveLength(5);
    expect(refused).toHaveLength(3);
    for (const res of refused) expectTooMany(res, 1);
    expect(count()).toBe(before + 5);
  });
});

describe('GATEWAY_API_RATE_LIMITS and GATEWAY_API_RATE_LIMIT_FACTOR', () => {
  it('off: no limit', async () => {
    const open = await startTestGateway({ GATEWAY_API_RATE_LIMITS: 'off', GATEWAY_API_RATE_LIMIT_FACTOR: '1' });
    try {
      const { companyId } = await seedCompany(open);
      for (let i = 0; i < 15; i += 1)
        expect((await open.request('GET', `/api/p2/conversations?company_id=${companyId}`)).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('a factor multiplies every window; bad values are refused at start', () => {
    const scaled = loadConfig({ GATEWAY_API_RATE_LIMIT_FACTOR: '2.5' }).apiLimits.rateLimits.find(
      (g) => g.name === 'messages.send',
    )!;
    expect(scaled.windows).toEqual([
      { points: 13, seconds: 1 },
      { points: 75, seconds: 60 },
    ]);
    expect(loadConfig({ GATEWAY_API_RATE_LIMIT_FACTOR: '0.01' }).apiLimits.rateLimits[0]!.windows[0]!.points).toBe(1);
    expect(
      problemsOf({
        GATEWAY_API_RATE_LIMITS: 'maybe',
        GATEWAY_API_RATE_LIMIT_FACTOR: '-1',
        GATEWAY_ATTACHMENT_FETCH_TIMEOUT: 'soon',
      }),
    ).toEqual([
      'GATEWAY_API_RATE_LIMITS must be on or off (got "maybe")',
      'GATEWAY_API_RATE_LIMIT_FACTOR must be a number from 0.01 to 100000 (got "-1")',
      'GATEWAY_ATTACHMENT_FETCH_TIMEOUT must be a duration from 100ms to 10m, such as 30s (got "soon")',
    ]);
  });
});
