// The company portal's isolation: a session of company A reaches its own company's data and
// nothing of company B, whatever ids or fields it sends (like the REST API's isolation tests).
// Through HTTP alone, so it runs against a cluster too: there for two companies on different shards
// and for two on the same shard. The links and the opening of a session are in
// portal-links.test.ts; what only the store shows (a link kept as a digest, an expired link, a
// company deleted under its session) in portal-link-rows.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudChannel, postCloudText } from '../helpers/cloud-texts.js';
import {
  expectErrorShape,
  ADMIN_TOKEN,
  TO_RECEIVERS,
  startTestGateway,
  testTarget,
  type TestGateway,
} from '../helpers/gateway.js';
import { asSession, enterPortal, portalLink, withoutToken, type PortalSession } from '../helpers/portal-session.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { endpointAbove, newCompanyOnShard, newEndpoint, type CreatedEndpoint } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

/** Two companies, each with an endpoint that failed its one delivery (a text), and a session of A. */
interface Pair {
  companyA: number;
  companyB: number;
  endpointA: number;
  endpointB: CreatedEndpoint;
  /** B's endpoint as the API showed it when it was made (its secret aside). */
  viewB: Record<string, unknown>;
  deliveryB: string;
  eventB: string;
  taskB: string;
  session: PortalSession;
  /** Receives both endpoints' deliveries, verified with B's secret; answers 500. */
  receiver: Receiver;
}

/** The shards of A's and B's companies: on one daemon one pair; on a cluster across shards and on one. */
const PAIRS: { name: string; shards: [number, number] }[] =
  testTarget() === 'cluster'
    ? [
        { name: 'companies on different shards', shards: [0, 1] },
        { name: 'companies on the same shard', shards: [2, 2] },
      ]
    : [{ name: 'two companies', shards: [0, 0] }];

let gw: TestGateway;
const pairs = new Map<string, Pair>();

const call = (method: string, path: string, options: Parameters<typeof withoutToken>[3] = {}) =>
  withoutToken(gw, method, path, options);

async function attemptsOf(delivery: string): Promise<number> {
  const res = await gw.admin('GET', `/admin/deliveries/${delivery}`);
  expect(res.status).toBe(200);
  return res.body.attempts.length;
}

async function pairOn([shardA, shardB]: [number, number]): Promise<Pair> {
  let secretB = '';
  const receiver = await startReceiver(
    () => [secretB],
    () => ({ status: 500 }),
  );
  const a = await newCompanyOnShard(gw, shardA, { name: 'A' });
  const b = await newCompanyOnShard(gw, shardB, { name: 'B' });
  // Each endpoint wants the texts alone: the channels' auth events give them no delivery.
  const hook = { url: receiver.url, active: true, event_types: ['message.create'] };
  const endpointA = await newEndpoint(gw, a, hook);
  // On another shard the same number would be A's own endpoint.
  const endpointB = await endpointAbove(gw, b, hook, endpointA.id);
  secretB = endpointB.secret;
  await postCloudText(gw, await cloudChannel(gw, a), 'wamid.isolation.a', 'a text of A');
  await postCloudText(gw, await cloudChannel(gw, b), 'wamid.isolation.b', 'a text of B');
  for (const company of [a, b])
    await eventually(`the failed delivery of company ${company}`, async () => {
      const failed = await gw.admin('GET', `/admin/deliveries?company_id=${company}&status=failed`);
      return failed.body.deliveries.length === 1;
    });
  const [delivery] = (await gw.admin('GET', `/admin/deliveries?company_id=${b}`)).body.deliveries;
  const task = await gw.admin('POST', '/admin/replays', { company_id: b, status: 'delivered' });
  expect(task.status).toBe(202);
  const { secret: _secret, ...viewB } = endpointB;
  return {
    companyA: a,
    companyB: b,
    endpointA: endpointA.id,
    endpointB,
    viewB,
    deliveryB: delivery.id,
    eventB: delivery.event_id,
    taskB: task.body.task.id,
    session: await enterPortal(gw, await portalLink(gw, a)),
    receiver,
  };
}

beforeAll(async () => {
  // One attempt per delivery: a failed one stays failed until replayed.
  gw = await startTestGateway({ ...TO_RECEIVERS, GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0' });
  for (const { name, shards } of PAIRS) pairs.set(name, await pairOn(shards));
}, 120_000);
afterAll(async () => {
  await gw?.close();
  for (const pair of pairs.values()) await pair.receiver.close();
});

describe.each(PAIRS)('$name', ({ name }) => {
  let p: Pair;
  beforeAll(() => {
    p = pairs.get(name)!;
  });
  const asA = (method: string, path: string, json?: unknown) => asSession(gw, p.session, method, path, json);

  /**
   * B's endpoint as the API shows it now is the one made (no change of url, active, event_types,
   * secret rotation or time of change), and its signature is the secret it was made with, alone:
   * the operator replays B's delivery, which signs with B's secrets as they are now. Its attempt
   * goes on the same stream and key as any replay a probe might have started: once it is recorded,
   * one started before it would be too, so B's delivery has exactly one attempt more than `attempts`.
   */
  async function expectBUnchanged(attempts: number): Promise<void> {
    const now = await gw.request('GET', `/api/p2/companies/${p.companyB}/webhooks/${p.endpointB.id}`);
    expect(now.status, now.text).toBe(200);
    expect(now.body.webhook).toEqual(p.viewB);
    expect(now.body.webhook).toMatchObject({
      url: p.receiver.url,
      active: true,
      event_types: ['message.create'],
      previous_secret_expires_at: null,
    });
    expect((await gw.admin('POST', `/admin/deliveries/${p.deliveryB}/replay`)).status).toBe(202);
    await eventually("the operator's replay attempted", async () => (await attemptsOf(p.deliveryB)) > attempts);
    expect(await attemptsOf(p.deliveryB)).toBe(attempts + 1);
    const signed = p.receiver.received.filter((hook) => hook.id === p.eventB).at(-1)!;
    expect(signed.verifiedBy).toEqual([0]);
    expect(String(signed.headers['webhook-signature']).split(' ')).toHaveLength(1);
  }

  describe("a portal session reaches its own company's data", () => {
    it('lists its endpoints with their health and its deliveries', async () => {
      const webhooks = (await asA('GET', '/portal/api/webhooks')).body.webhooks;
      expect(webhooks.map((w: { id: number }) => w.id)).toEqual([p.endpointA]);
      expect(webhooks[0].health).toMatchObject({ endpoint_id: p.endpointA, consecutive_failures: 1 });
      expect(webhooks[0]).not.toHaveProperty('secret');
      const deliveries = (await asA('GET', '/portal/api/deliveries')).body.deliveries;
      expect(deliveries.map((d: { company_id: number }) => d.company_id)).toEqual([p.companyA]);
    });

    it('changes nothing without the CSRF token', async () => {
      const res = await call('PATCH', `/portal/api/webhooks/${p.endpointA}`, {
        json: { active: false },
        headers: { cookie: p.session.cookie },
      });
      expectErrorShape(res, 403, 'forbidden');
      const endpoint = await gw.request('GET', `/api/p2/companies/${p.companyA}/webhooks/${p.endpointA}`);
      expect(endpoint.body.webhook.active).toBe(true);
    });

    it('answers bad input with a 4xx in the error shape', async () => {
      const own = `/portal/api/webhooks/${p.endpointA}`;
      expectErrorShape(
        await asA('POST', '/portal/api/webhooks', { url: 'ftp://example.com' }),
        422,
        'validation_failed',
      );
      expectErrorShape(await asA('PATCH', own, { event_types: ['message.nothing'] }), 422, 'validation_failed');
      expectErrorShape(await asA('GET', '/portal/api/deliveries?limit=0'), 422, 'validation_failed');
      expectErrorShape(await asA('GET', '/portal/api/deliveries?cursor=nonsense'), 422, 'validation_failed');
      const malformed = await call('PATCH', own, {
        headers: { cookie: p.session.cookie, 'x-csrf-token': p.session.csrf, 'content-type': 'application/json' },
        body: '{"url":',
      });
      expectErrorShape(malformed, 400, 'bad_request');
      expectErrorShape(await asA('POST', `${own}/rotate_secret`, { anything: 1 }), 422, 'validation_failed');
    });
  });

  describe('nothing of another company is reachable from a portal session', () => {
    it("answers 404 for the other company's endpoints, deliveries and tasks, on every route, and changes nothing", async () => {
      const attemptsBefore = await attemptsOf(p.deliveryB);
      const probes: [string, string, unknown?][] = [
        ['PATCH', `/portal/api/webhooks/${p.endpointB.id}`, { url: 'https://attacker.example/hook' }],
        ['PATCH', `/portal/api/webhooks/${p.endpointB.id}`, { active: false }],
        ['POST', `/portal/api/webhooks/${p.endpointB.id}/rotate_secret`],
        ['POST', `/portal/api/webhooks/${p.endpointB.id}/test`],
        ['GET', `/portal/api/deliveries/${p.deliveryB}`],
        ['POST', `/portal/api/deliveries/${p.deliveryB}/replay`],
        ['GET', `/portal/api/replays/${p.taskB}`],
        ['POST', '/portal/api/replays', { endpoint_id: p.endpointB.id }],
      ];
      for (const [method, path, json] of probes) {
        const res = await asA(method, path, json);
        expectErrorShape(res, 404, 'not_found');
        expect(res.text, `${method} ${path}`).not.toContain(p.receiver.url);
      }
      await expectBUnchanged(attemptsBefore);
      // No test event of B's endpoint was made either: B has its one delivery still.
      expect((await gw.admin('GET', `/admin/deliveries?company_id=${p.companyB}`)).body.deliveries).toHaveLength(1);
    });

    it('refuses a company named in a query or a body, and filters by its own company whatever endpoint is asked for', async () => {
      const attemptsBefore = await attemptsOf(p.deliveryB);
      const b = p.companyB;
      expectErrorShape(await asA('GET', `/portal/api/deliveries?company_id=${b}`), 422, 'validation_failed');
      expectErrorShape(
        await asA('POST', '/portal/api/webhooks', { url: 'https://example.com/x', company_id: b }),
        422,
        'validation_failed',
      );
      expectErrorShape(
        await asA('PATCH', `/portal/api/webhooks/${p.endpointA}`, { company_id: b }),
        422,
        'validation_failed',
      );
      expectErrorShape(await asA('POST', '/portal/api/replays', { company_id: b }), 422, 'validation_failed');
      expect((await asA('GET', `/portal/api/deliveries?endpoint_id=${p.endpointB.id}`)).body.deliveries).toEqual([]);
      const byEvent = await asA('GET', `/portal/api/deliveries?event_id=${encodeURIComponent(p.eventB)}`);
      expect(byEvent.body.deliveries).toEqual([]);
      const all = await asA('POST', '/portal/api/replays', {});
      expect(all.status).toBe(202);
      expect(all.body.task.filter).toEqual({ company_id: p.companyA, status: 'failed' });
      expect(all.body.task.total).toBe(1);
      await expectBUnchanged(attemptsBefore);
    });

    it('opens neither the admin API, the REST API nor the console, and a console session does not open the portal', async () => {
      const cookie = { cookie: p.session.cookie };
      expectErrorShape(await call('GET', '/admin/deliveries', { headers: cookie }), 401, 'unauthorized');
      expectErrorShape(
        await call('GET', `/api/p2/companies/${p.companyA}/webhooks`, { headers: cookie }),
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
  });
});
