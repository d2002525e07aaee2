// Strict ordering, the rate limit per endpoint and held deliveries (docs/decisions.md, "Delivery
// order, rate limits, held deliveries"), end to end through a real gateway in embedded mode and in
// Kafka mode (every role in one process, on the test broker), with endpoints set up through the v2
// API and receivers that verify every webhook with the standardwebhooks package.
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/streams/stream.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { emitEvent, insertCompany } from '../helpers/pipeline.js';
import { startReceiver, type Answer } from '../helpers/receiver.js';
import { startTimingReceiver } from '../helpers/timing-receiver.js';
import { eventually } from '../helpers/wait.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The streams of each mode: Kafka is the shared test broker under a namespace of this gateway's own. */
const MODES = { embedded: 'sqlite', kafka: 'kafka' } as const;

/**
 * Short retries without jitter, and an attempt timeout short enough for a test, long enough that an
 * answer the receiver sends at once is never taken for the one that hangs on a loaded machine (an
 * extra timeout there is an extra attempt, and the tests count attempts).
 */
const FAST = {
  GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0,300ms,300ms,300ms,300ms',
  GATEWAY_WEBHOOK_RETRY_JITTER: '0',
  GATEWAY_WEBHOOK_TIMEOUT: '2s',
};

async function setup(mode: keyof typeof MODES) {
  const gw = await startTestGateway({ ...TO_RECEIVERS, ...FAST }, { clock: systemClock, streams: MODES[mode] });
  cleanups.push(() => gw.close());
  return gw;
}

async function receiver(secret: () => string, answer?: (n: number) => Answer) {
  const r = await startReceiver(() => [secret()], answer);
  cleanups.push(() => r.close());
  return r;
}

async function api(
  gw: TestGateway,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gw.baseUrl}${path}`, {
    method,
    headers: { 'x-private-api-token': gw.token, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** An endpoint created through the v2 API, active unless the body says otherwise; answers it with its secret. */
async function createEndpoint(gw: TestGateway, company: number, body: Record<string, unknown>) {
  const created = await api(gw, 'POST', `/api/p2/companies/${company}/webhooks`, { active: true, ...body });
  expect(created.status).toBe(201);
  return created.body.webhook as {
    id: number;
    secret: string;
    ordering: string;
    rate_limit: number | null;
    active: boolean;
  };
}

/**
 * The ids of the test's own events as they arrived: without the activation's test POST (webhook-id
 * test_...) and the operational events an endpoint gets when it is enabled (webhook.enabled).
 */
const eventIds = (received: readonly { id: string; body: unknown }[]) =>
  received
    .filter((h) => !h.id.startsWith('test_') && (h.body as { type?: string }).type !== 'webhook')
    .map((h) => h.id);

/** The ids as they arrived, each run of copies of one id (an attempt sent again) counted once. */
const arrivalOrder = (ids: readonly string[]) => ids.filter((id, i) => i === 0 || ids[i - 1] !== id);

const statusesOf = (gw: TestGateway, endpointId: number) =>
  (
    gw.store.db.prepare('SELECT status FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY seq').all(endpointId) as {
      status: string;
    }[]
  ).map((r) => r.status);

describe.each(['embedded', 'kafka'] as const)('delivery options (%s streams)', (mode) => {
  it('strict ordering: every event arrives in creation order while the receiver fails, times out and recovers', async () => {
    const gw = await setup(mode);
    const company = insertCompany(gw.store);
    let secret = '';
    // The 3rd and 4th requests fail, the 7th hangs past the attempt timeout, the 9th fails again.
    const r = await receiver(
      () => secret,
      (n) => (n === 3 || n === 4 || n === 9 ? { status: 500 } : n === 7 ? 'hang' : { status: 200 }),
    );
    const endpoint = await createEndpoint(gw, company, { url: r.url, ordering: 'strict' });
    secret = endpoint.secret;
    expect(endpoint.ordering).toBe('strict');

    const created = Array.from({ length: 12 }, (_, i) => emitEvent(gw.store, company, 'message.create', { id: i }).id);
    await eventually('the first failure', () => r.received.length >= 3, 30_000);
    created.push(
      ...Array.from({ length: 4 }, (_, i) => emitEvent(gw.store, company, 'message.create', { id: 100 + i }).id),
    );
    await eventually(
      'every event delivered',
      () => statusesOf(gw, endpoint.id).filter((s) => s === 'delivered').length === created.length,
      60_000,
    );

    const ids = r.received.map((h) => h.id);
    expect(arrivalOrder(ids)).toEqual(created);
    // The failures were retried in place: 3 failures and a timeout, each sent again.
    expect(ids.length).toBe(created.length + 4);
    for (const hook of r.received) expect(hook.verifiedBy).toEqual([0]);
    expect((await gw.admin('GET', `/admin/companies/${company}/endpoints`)).body.endpoints[0]).toMatchObject({
      ordering: 'strict',
      held: 0,
    });
  }, 120_000);

  it('rate limit: paces an endpoint to its deliveries per second, replays included, and slows down on 429 with Retry-After', async () => {
    const gw = await setup(mode);
    const company = insertCompany(gw.store);
    const r = await startTimingReceiver({ 6: { status: 429, headers: { 'retry-after': '2' } } });
    cleanups.push(() => r.close());
    const endpoint = await createEndpoint(gw, company, { url: r.url, rate_limit: 5 });
    expect(endpoint.rate_limit).toBe(5);

    const created = Array.from({ length: 12 }, (_, i) => emitEvent(gw.store, company, 'message.create', { id: i }).id);
    await eventually(
      'every event delivered',
      () => statusesOf(gw, endpoint.id).filter((s) => s === 'delivered').length === created.length,
      60_000,
    );
    expect(new Set(r.arrivals.map((a) => a.id))).toEqual(new Set(created));
    const arrivals = r.arrivals.map((a) => a.at);
    // 5 per second: 200 ms between two attempts as sent. The receiver stamps them on a thread of its
    // own; the sender's thread may still be a little late now and then, so each gap may read a little
    // short, the whole run may not. Unpaced, they would come ms apart.
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(140);
    // After the 429 (the 6th request) nothing came for its Retry-After.
    expect(gaps[5]).toBeGreaterThanOrEqual(1_900);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual((gaps.length - 1) * 200 + 2_000 - 100);

    // A bulk replay of every delivery of the endpoint is paced the same way.
    const before = r.arrivals.length;
    const task = await gw.admin('POST', '/admin/replays', { endpoint_id: endpoint.id, status: 'delivered' });
    expect(task.status).toBe(202);
    await eventually('every replay received', () => r.arrivals.length === before + created.length, 60_000);
    const replayed = r.arrivals.slice(before).map((a) => a.at);
    for (let i = 1; i < replayed.length; i += 1) expect(replayed[i]! - replayed[i - 1]!).toBeGreaterThanOrEqual(140);
    expect(replayed.at(-1)! - replayed[0]!).toBeGreaterThanOrEqual(((created.length - 1) * 1_000) / 5 - 100);
  }, 120_000);

  it('holds the events of a disabled endpoint, sends them once it is enabled, and discards them on request', async () => {
    const gw = await setup(mode);
    const company = insertCompany(gw.store);
    let secret = '';
    const r = await receiver(() => secret);
    const endpoint = await createEndpoint(gw, company, { url: r.url, active: false });
    secret = endpoint.secret;
    const base = `/admin/companies/${company}/endpoints/${endpoint.id}`;

    const first = Array.from({ length: 3 }, (_, i) => emitEvent(gw.store, company, 'message.create', { id: i }).id);
    await eventually(
      'three held',
      async () =>
        (await gw.admin('GET', `/admin/deliveries?endpoint_id=${endpoint.id}&status=held`)).body.deliveries.length ===
        3,
    );
    const held = (await gw.admin('GET', `/admin/deliveries?endpoint_id=${endpoint.id}&status=held`)).body.deliveries;
    expect(held.map((d: { event_id: string }) => d.event_id)).toEqual([...first].reverse());
    for (const d of held)
      expect(d).toMatchObject({ status: 'held', held_reason: 'endpoint_disabled', attempt_count: 0 });
    expect(
      (await gw.admin('GET', `/admin/deliveries?endpoint_id=${endpoint.id}&status=pending`)).body.deliveries,
    ).toEqual([]);
    expect((await gw.admin('GET', `/admin/companies/${company}/endpoints`)).body.endpoints[0]).toMatchObject({
      active: false,
      held: 3,
    });
    expect(r.received).toHaveLength(0);

    expect((await gw.admin('POST', `${base}/enable`)).status).toBe(200);
    await eventually(
      'the held events delivered',
      () => statusesOf(gw, endpoint.id).every((s) => s === 'delivered'),
      30_000,
    );
    expect(new Set(eventIds(r.received))).toEqual(new Set(first));

    // Disabled again through the v2 API: new events are held; an operator discards them.
    expect(
      (await api(gw, 'PATCH', `/api/p2/companies/${company}/webhooks/${endpoint.id}`, { active: false })).status,
    ).toBe(200);
    const later = [emitEvent(gw.store, company).id, emitEvent(gw.store, company).id];
    await eventually('two more held', () => gw.store.held.count(endpoint.id) === 2);
    const discarded = await gw.admin('POST', `${base}/held/discard`);
    expect(discarded.status).toBe(200);
    expect(discarded.body).toMatchObject({ discarded: 2, endpoint: { endpoint_id: endpoint.id, held: 0 } });
    const failed = (await gw.admin('GET', `/admin/deliveries?endpoint_id=${endpoint.id}&status=failed`)).body
      .deliveries;
    expect(failed.map((d: { event_id: string }) => d.event_id).sort()).toEqual([...later].sort());
    for (const d of failed) expect(d.last_error).toBe('discarded by an operator while held');
    expect((await gw.admin('POST', `${base}/enable`)).status).toBe(200);
    // An event emitted after the enable goes out after anything the enable released.
    const marker = emitEvent(gw.store, company).id;
    await eventually('the event after the enable delivered', () => eventIds(r.received).includes(marker));
    expect(eventIds(r.received)).toHaveLength(4);
    expect(eventIds(r.received).at(-1)).toBe(marker);
  }, 120_000);
});

describe('held deliveries (embedded)', () => {
  it('are bound by the delivery retention like any other', async () => {
    const gw = await setup('embedded');
    const company = insertCompany(gw.store);
    const r = await receiver(() => 'whsec_unused');
    const endpoint = await createEndpoint(gw, company, { url: r.url, active: false });
    emitEvent(gw.store, company);
    await eventually('held', () => gw.store.held.count(endpoint.id) === 1);
    expect(gw.store.deliveries.pruneFinished(Date.now() - 60_000, 0, 100).deleted).toBe(0);
    expect(gw.store.deliveries.pruneFinished(Date.now() + 60_000, 0, 100).deleted).toBe(1);
    expect(gw.store.held.count(endpoint.id)).toBe(0);
  });

  it('keep their order when a strictly ordered endpoint is disabled and enabled again', async () => {
    const gw = await setup('embedded');
    const company = insertCompany(gw.store);
    let secret = '';
    const r = await receiver(() => secret);
    const endpoint = await createEndpoint(gw, company, { url: r.url, ordering: 'strict', active: false });
    secret = endpoint.secret;
    const created = Array.from({ length: 6 }, (_, i) => emitEvent(gw.store, company, 'message.create', { id: i }).id);
    await eventually('all held', () => gw.store.held.count(endpoint.id) === 6);
    expect(
      (await api(gw, 'PATCH', `/api/p2/companies/${company}/webhooks/${endpoint.id}`, { active: true })).body.webhook,
    ).toMatchObject({ active: true, ordering: 'strict' });
    await eventually('all delivered', () => statusesOf(gw, endpoint.id).every((s) => s === 'delivered'), 30_000);
    // Enabling it sent the activation's test POST first (webhook-id test_...), then the held events in order.
    expect(r.received[0]!.id).toMatch(/^test_[0-9a-f]{32}$/);
    expect(eventIds(r.received)).toEqual(created);
  });

  it('a default endpoint sends a failing event and the ones after it without waiting (what strict ordering changes)', async () => {
    const gw = await setup('embedded');
    const company = insertCompany(gw.store);
    const r = await receiver(
      () => 'whsec_unused',
      (n) => (n === 2 ? { status: 500 } : { status: 200 }),
    );
    const endpoint = await createEndpoint(gw, company, { url: r.url });
    expect(endpoint).toMatchObject({ ordering: 'default', rate_limit: null });
    const created = Array.from({ length: 5 }, (_, i) => emitEvent(gw.store, company, 'message.create', { id: i }).id);
    await eventually(
      'all delivered',
      () => statusesOf(gw, endpoint.id).every((s) => s === 'delivered') && r.received.length === 6,
      30_000,
    );
    expect(arrivalOrder(r.received.map((h) => h.id))).not.toEqual(created);
  });
});
