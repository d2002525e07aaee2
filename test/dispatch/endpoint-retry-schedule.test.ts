// A retry schedule per endpoint (docs/api.md, "Retry schedules"), within the operator's bounds:
// validated when saved, shown by the API, and followed by the dispatcher, on a ManualClock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/streams/stream.js';
import {
  expectErrorShape,
  failingFields,
  startTestGateway,
  TO_RECEIVERS,
  type TestGateway,
} from '../helpers/gateway.js';
import { emitEvent } from '../helpers/pipeline.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';
import { newCompany } from '../helpers/seed.js';

let gw: TestGateway;
const clock = new ManualClock();
const receivers: Receiver[] = [];
beforeAll(async () => {
  gw = await startTestGateway(
    {
      ...TO_RECEIVERS,
      GATEWAY_WEBHOOK_RETRY_JITTER: '0',
      GATEWAY_WEBHOOK_ENDPOINT_MAX_ATTEMPTS: '4',
      GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY: '1h',
    },
    { clock },
  );
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await gw?.close();
});

const hooksPath = (company: number) => `/api/p2/companies/${company}/webhooks`;
const deliveryOf = (eventId: string, endpointId: number) =>
  gw.store.db
    .prepare(
      'SELECT status, attempt_count, next_attempt_at FROM webhook_deliveries WHERE event_id = ? AND endpoint_id = ?',
    )
    .get(eventId, endpointId) as { status: string; attempt_count: number; next_attempt_at: number | null } | undefined;

describe('retry schedules per endpoint through the API', () => {
  it('stores one, shows it, and null brings back the gateway-wide schedule', async () => {
    const company = await newCompany(gw);
    const created = await gw.request('POST', hooksPath(company), {
      json: { url: 'https://crm.example.com/hooks', retry_schedule: [10, 60, 3600] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.webhook.retry_schedule).toEqual([10, 60, 3600]);
    const id = created.body.webhook.id as number;
    expect(gw.store.webhooks.find(company, id)!.retry_schedule).toBe('[10,60,3600]');
    const cleared = await gw.request('PATCH', `${hooksPath(company)}/${id}`, { json: { retry_schedule: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.webhook).not.toHaveProperty('retry_schedule');
    expect(gw.store.webhooks.find(company, id)!.retry_schedule).toBeNull();
  });

  it.each<[string, unknown, string, string]>([
    [
      'more attempts than the operator allows',
      [1, 2, 3, 4],
      'retry_schedule',
      'retry_schedule makes 5 attempts, more than the 4 this gateway allows (GATEWAY_WEBHOOK_ENDPOINT_MAX_ATTEMPTS): list at most 3 delays',
    ],
    [
      'a delay longer than the operator allows',
      [60, 3601],
      'retry_schedule/1',
      'retry_schedule.1 waits 3601 seconds, longer than the 3600 this gateway allows (GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY)',
    ],
    ['a delay of 0', [0], 'retry_schedule/0', 'retry_schedule.0 must be at least 1'],
    ['a fractional delay', [1.5], 'retry_schedule/0', 'retry_schedule.0 must be an integer'],
    ['a list as text', '10,60', 'retry_schedule', 'retry_schedule must be an array or null'],
  ])('422 for %s, naming it, nothing stored', async (_name, schedule, field, detail) => {
    const company = await newCompany(gw);
    const res = await gw.request('POST', hooksPath(company), {
      json: { url: 'https://crm.example.com/x', retry_schedule: schedule },
    });
    expect(failingFields(res)).toEqual([field]);
    expect(expectErrorShape(res, 422, 'validation_failed')[0]!.detail).toBe(detail);
    expect(gw.store.webhooks.count(company)).toBe(0);
  });

  it('refuses an update beyond the bounds and leaves the schedule as it was', async () => {
    const company = await newCompany(gw);
    const created = await gw.request('POST', hooksPath(company), {
      json: { url: 'https://crm.example.com/y', retry_schedule: [5] },
    });
    const id = created.body.webhook.id as number;
    const res = await gw.request('PUT', `${hooksPath(company)}/${id}`, { json: { retry_schedule: [5, 5, 5, 5, 5] } });
    expect(failingFields(res)).toEqual(['retry_schedule']);
    expect(gw.store.webhooks.find(company, id)!.retry_schedule).toBe('[5]');
  });
});

describe('the dispatcher follows the endpoint schedule', () => {
  it("retries after the endpoint's own delays and fails after its last attempt; others keep the gateway-wide schedule", async () => {
    const company = await newCompany(gw);
    const own = await startReceiver(
      () => [],
      () => ({ status: 500 }),
    );
    const plain = await startReceiver(
      () => [],
      () => ({ status: 500 }),
    );
    receivers.push(own, plain);
    const ownHook = await gw.request('POST', hooksPath(company), {
      json: { url: own.url, active: true, retry_schedule: [30, 120] },
    });
    const plainHook = await gw.request('POST', hooksPath(company), { json: { url: plain.url, active: true } });
    const [ownId, plainId] = [ownHook.body.webhook.id as number, plainHook.body.webhook.id as number];
    const event = emitEvent(gw.store, company);

    await eventually(
      'the first attempts',
      () => deliveryOf(event.id, ownId)?.attempt_count === 1 && deliveryOf(event.id, plainId)?.attempt_count === 1,
    );
    expect(deliveryOf(event.id, ownId)!.next_attempt_at! - clock.now()).toBe(30_000);
    // The gateway-wide schedule (0, 5s, 5m, …) for the endpoint without one.
    expect(deliveryOf(event.id, plainId)!.next_attempt_at! - clock.now()).toBe(5_000);

    clock.advance(29_999);
    // Not due a millisecond early.
    expect(gw.store.deliveries.due(clock.now(), 100).filter((d) => d.endpoint_id === ownId)).toEqual([]);
    expect(own.received).toHaveLength(1);
    clock.advance(1);
    await eventually('the second attempt', () => deliveryOf(event.id, ownId)?.attempt_count === 2);
    expect(deliveryOf(event.id, ownId)!.next_attempt_at! - clock.now()).toBe(120_000);

    clock.advance(120_000);
    await eventually('the third and last attempt', () => deliveryOf(event.id, ownId)?.status === 'failed');
    expect(own.received.map((hook) => hook.id)).toEqual([event.id, event.id, event.id]);
    expect(deliveryOf(event.id, ownId)).toMatchObject({ status: 'failed', attempt_count: 3, next_attempt_at: null });
    // The other endpoint is still retrying: its schedule has eight attempts.
    expect(deliveryOf(event.id, plainId)!.status).toBe('pending');
  });
});
