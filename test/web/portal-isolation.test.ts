import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/streams/stream.js';
import {
  expectErrorShape,
  type TestResponse,
  ADMIN_TOKEN,
  TO_RECEIVERS,
  startTestGateway,
  type TestGateway,
} from '../helpers/gateway.js';
import { emitEvent, insertCompany, insertEndpoint } from '../helpers/pipeline.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

// The company portal's links and sessions, and its isolation: a session of company A reaches
// nothing of company B, whatever ids or fields it sends (like the REST API's isolation tests).

let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let companyA: number;
let companyB: number;
let endpointA: number;
let endpointB: { id: number; secret: string };
let deliveryB: string;
let taskB: string;
let session: { cookie: string; csrf: string };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function call(
  method: string,
  path: string,
  options: { json?: unknown; headers?: Record<string, string>; token?: string } = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['x-private-api-token'] = options.token;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gw.baseUrl}${path}`, {
    method,
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
    redirect: 'manual',
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const raw = Object.fromEntries(response.headers);
  return { status: response.status, headers: { ...raw, 'set-cookie': response.headers.getSetCookie() }, text, body };
}

async function link(companyId: number, token = gw.token): Promise<string> {
  const res = await call('POST', `/api/p2/companies/${companyId}/portal_sessions`, { token });
  expect(res.status).toBe(201);
  return new URL(res.body.portal_session.url).hash.slice(1);
}

async function enter(linkToken: string): Promise<{ cookie: string; csrf: string; token: string }> {
  const res = await call('POST', '/portal/session', { json: { token: linkToken } });
  expect(res.status, res.text).toBe(201);
  const token = /gw_portal=([^;]+)/.exec(String(res.headers['set-cookie']))![1]!;
  return { cookie: `gw_portal=${token}`, csrf: res.body.session.csrf_token, token };
}

/** A request of company A's portal session (cookie and CSRF token). */
const asA = (method: string, path: string, json?: unknown) =>
  call(method, path, { json, headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });

beforeAll(async () => {
  gw = await startTestGateway({ ...TO_RECEIVERS, GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0' }, { clock: new ManualClock() });
  receiver = await startReceiver(
    () => [],
    () => ({ status: 500 }),
  );
  companyA = insertCompany(gw.store, 'A');
  companyB = insertCompany(gw.store, 'B');
  endpointA = insertEndpoint(gw.store, companyA, receiver.url).id;
  endpointB = insertEndpoint(gw.store, companyB, receiver.url);
  emitEvent(gw.store, companyA);
  emitEvent(gw.store, companyB);
  await eventually(
    'two failed deliveries',
    async () => (await gw.admin('GET', '/admin/deliveries?status=failed')).body.deliveries.length === 2,
  );
  deliveryB = (await gw.admin('GET', `/admin/deliveries?company_id=${companyB}`)).body.deliveries[0].id;
  taskB = (await gw.admin('POST', '/admin/replays', { company_id: companyB, status: 'delivered' })).body.task.id;
  session = await enter(await link(companyA));
});
afterAll(async () => {
  await gw.close();
  await receiver.close();
});

describe('portal links', () => {
  it("answers a link into the company's portal, valid for ten minutes, its token stored as a digest only", async () => {
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
    const token = new URL(res.body.portal_session.url).hash.slice(1);
    const rows = gw.store.db.prepare('SELECT * FROM portal_links').all();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows).toContainEqual(
      expect.objectContaining({ token_sha256: sha256(token), company_id: companyA, used_at: null }),
    );
  });

  it("refuses a link to another account's company, an unknown one, and a caller without a valid API token", async () => {
    gw.store.transaction(() => gw.store.accounts.createWithToken('other', sha256('gwk_other_account_token_0123')));
    expectErrorShape(
      await call('POST', `/api/p2/companies/${companyA}/portal_sessions`, { token: 'gwk_other_account_token_0123' }),
      404,
      'not_found',
    );
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
    expectErrorShape(await call('POST', `/api/p2/companies/${companyA}/portal_sessions`), 401, 'unauthorized');
    expectErrorShape(
      await call('POST', `/api/p2/companies/${companyA}/portal_sessions`, { token: 'gwk_wrong' }),
      401,
      'unauthorized',
    );
  });

  it('opens one session, once: a second use, an expired link and a made-up one answer 401', async () => {
    const token = await link(companyA);
    const first = await call('POST', '/portal/session', { json: { token } });
    expect(first.status).toBe(201);
    expect(first.body.company).toEqual({ id: companyA, name: 'A' });
    expect(first.headers['set-cookie']).toEqual([
      expect.stringMatching(/^gw_portal=gws_[A-Za-z0-9_-]{43}; Path=\/portal; HttpOnly; SameSite=Strict$/),
    ]);
    expect(
      expectErrorShape(await call('POST', '/portal/session', { json: { token } }), 401, 'unauthorized')[0]!.detail,
    ).toMatch(/used already or expired/);
    const stale = await link(companyA);
    gw.store.db
      .prepare('UPDATE portal_links SET expires_at = ? WHERE token_sha256 = ?')
      .run(Date.now() - 1, sha256(stale));
    expectErrorShape(await call('POST', '/portal/session', { json: { token: stale } }), 401, 'unauthorized');
    expectErrorShape(await call('POST', '/portal/session', { json: { token: 'gwp_made_up' } }), 401, 'unauthorized');
    expectErrorShape(await call('POST', '/portal/session', { json: {} }), 422, 'validation_failed');
    expectErrorShape(
      await call('POST', '/portal/session', {
        json: { token: await link(companyA) },
        headers: { origin: 'https://evil.example' },
      }),
      403,
      'forbidden',
    );
    expect(gw.logText()).not.toContain(token);
    expect(gw.logText()).not.toContain(/gw_portal=([^;]+)/.exec(String(first.headers['set-cookie']))![1]!);
  });
});

describe("a portal session reaches its own company's data", () => {
  it('lists its endpoints with their health and its deliveries', async () => {
    const webhooks = (await asA('GET', '/portal/api/webhooks')).body.webhooks;
    expect(webhooks.map((w: { id: number }) => w.id)).toEqual([endpointA]);
    expect(webhooks[0].health).toMatchObject({ endpoint_id: endpointA, consecutive_failures: 1 });
    expect(webhooks[0]).not.toHaveProperty('secret');
    const deliveries = (await asA('GET', '/portal/api/deliveries')).body.deliveries;
    expect(deliveries.map((d: { company_id: number }) => d.company_id)).toEqual([companyA]);
  });

  it('changes nothing without the CSRF token', async () => {
    const res = await call('PATCH', `/portal/api/webhooks/${endpointA}`, {
      json: { active: false },
      headers: { cookie: session.cookie },
    });
    expectErrorShape(res, 403, 'forbidden');
    expect(gw.store.webhooks.find(companyA, endpointA)!.active).toBe(1);
  });

  it('answers bad input with a 4xx in the error shape', async () => {
    expectErrorShape(await asA('POST', '/portal/api/webhooks', { url: 'ftp://example.com' }), 422, 'validation_failed');
    expectErrorShape(
      await asA('PATCH', `/portal/api/webhooks/${endpointA}`, { event_types: ['message.nothing'] }),
      422,
      'validation_failed',
    );
    expectErrorShape(await asA('GET', '/portal/api/deliveries?limit=0'), 422, 'validation_failed');
    expectErrorShape(await asA('GET', '/portal/api/deliveries?cursor=nonsense'), 422, 'validation_failed');
    const malformed = await fetch(`${gw.baseUrl}/portal/api/webhooks/${endpointA}`, {
      method: 'PATCH',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
      body: '{"url":',
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('bad_request');
    expectErrorShape(
      await asA('POST', `/portal/api/webhooks/${endpointA}/rotate_secret`, { anything: 1 }),
      422,
      'validation_failed',
    );
  });
});

describe('nothing of another company is reachable from a portal session', () => {
  const unchangedB = () => {
    const row = gw.store.webhooks.find(companyB, endpointB.id)!;
    expect({ url: row.url, active: row.active, secret: row.secret, event_types: row.event_types }).toEqual({
      url: receiver.url,
      active: 1,
      secret: endpointB.secret,
      event_types: null,
    });
  };

  it("answers 404 for the other company's endpoints, deliveries and tasks, on every route, and changes nothing", async () => {
    const attemptsBefore = gw.store.deliveries.attempts(deliveryB).length;
    const probes: [string, string, unknown?][] = [
      ['PATCH', `/portal/api/webhooks/${endpointB.id}`, { url: 'https://attacker.example/hook' }],
      ['PATCH', `/portal/api/webhooks/${endpointB.id}`, { active: false }],
      ['POST', `/portal/api/webhooks/${endpointB.id}/rotate_secret`],
      ['POST', `/portal/api/webhooks/${endpointB.id}/test`],
      ['GET', `/portal/api/deliveries/${deliveryB}`],
      ['POST', `/portal/api/deliveries/${deliveryB}/replay`],
      ['GET', `/portal/api/replays/${taskB}`],
      ['POST', '/portal/api/replays', { endpoint_id: endpointB.id }],
    ];
    for (const [method, path, json] of probes) {
      const res = await asA(method, path, json);
      expectErrorShape(res, 404, 'not_found');
      expect(res.text, `${method} ${path}`).not.toContain(receiver.url);
    }
    unchangedB();
    // A replay of the operator's own goes on the same stream and key as any replay a probe might
    // have started: once its attempt is recorded, one started before it would be too.
    expect((await gw.admin('POST', `/admin/deliveries/${deliveryB}/replay`)).status).toBe(202);
    await eventually(
      "the operator's replay attempted",
      () => gw.store.deliveries.attempts(deliveryB).length > attemptsBefore,
    );
    expect(gw.store.deliveries.attempts(deliveryB)).toHaveLength(attemptsBefore + 1);
    // No test event of B's endpoint was made either: B has its one delivery still.
    expect((await gw.admin('GET', `/admin/deliveries?company_id=${companyB}`)).body.deliveries).toHaveLength(1);
  });

  it('refuses a company named in a query or a body, and filters by its own company whatever endpoint is asked for', async () => {
    expectErrorShape(await asA('GET', `/portal/api/deliveries?company_id=${companyB}`), 422, 'validation_failed');
    expectErrorShape(
      await asA('POST', '/portal/api/webhooks', { url: 'https://example.com/x', company_id: companyB }),
      422,
      'validation_failed',
    );
    expectErrorShape(
      await asA('PATCH', `/portal/api/webhooks/${endpointA}`, { company_id: companyB }),
      422,
      'validation_failed',
    );
    expectErrorShape(await asA('POST', '/portal/api/replays', { company_id: companyB }), 422, 'validation_failed');
    expect((await asA('GET', `/portal/api/deliveries?endpoint_id=${endpointB.id}`)).body.deliveries).toEqual([]);
    expect(
      (
        await asA(
          'GET',
          `/portal/api/deliveries?event_id=${encodeURIComponent((await gw.admin('GET', `/admin/deliveries/${deliveryB}`)).body.delivery.event_id)}`,
        )
      ).body.deliveries,
    ).toEqual([]);
    const all = await asA('POST', '/portal/api/replays', {});
    expect(all.status).toBe(202);
    expect(all.body.task.filter).toEqual({ company_id: companyA, status: 'failed' });
    expect(all.body.task.total).toBe(1);
    unchangedB();
  });

  it('opens neither the admin API, the REST API nor the console, and a console session does not open the portal', async () => {
    const cookie = { cookie: session.cookie };
    expectErrorShape(await call('GET', '/admin/deliveries', { headers: cookie }), 401, 'unauthorized');
    expectErrorShape(
      await call('GET', `/api/p2/companies/${companyA}/webhooks`, { headers: cookie }),
      401,
      'unauthorized',
    );
    expectErrorShape(await call('GET', '/console/session', { headers: cookie }), 401, 'unauthorized');
    const consoleLogin = await call('POST', '/console/session', { json: { token: ADMIN_TOKEN } });
    const consoleCookie = /gw_console=[^;]+/.exec(String(consoleLogin.headers['set-cookie']))![0];
    expectErrorShape(
      await call('GET', '/portal/api/webhooks', { headers: { cookie: consoleCookie } }),
      401,
      'unauthorized',
    );
    // The session token itself, sent as the other face's cookie, is refused too: sessions belong to one face.
    expectErrorShape(
      await call('GET', '/portal/api/webhooks', {
        headers: { cookie: consoleCookie.replace('gw_console', 'gw_portal') },
      }),
      401,
      'unauthorized',
    );
  });

  it('ends with its company: a deleted company leaves its sessions nothing', async () => {
    const doomed = insertCompany(gw.store, 'Doomed');
    const doomedSession = await enter(await link(doomed));
    expect((await call('GET', '/portal/api/webhooks', { headers: { cookie: doomedSession.cookie } })).status).toBe(200);
    gw.store.db.prepare('DELETE FROM companies WHERE id = ?').run(doomed);
    expectErrorShape(
      await call('GET', '/portal/api/webhooks', { headers: { cookie: doomedSession.cookie } }),
      401,
      'unauthorized',
    );
    expect((await call('GET', '/portal', { headers: { cookie: doomedSession.cookie } })).status).toBe(303);
  });
});
