import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/streams/stream.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { emitEvent, insertCompany, insertEndpoint } from '../helpers/pipeline.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

// The admin routes the console builds on beyond the list and replays of admin.test.ts: search by
// event id, the event body of a delivery, cancelling a bulk replay, an operator's disable and
// enable of an endpoint, and the pipeline's attempt rates.

let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let failing = true;
let companyA: number;
let companyB: number;
let endpointA: number;
let endpointB: number;
const clock = new ManualClock();
// The minute the first failures were attempted in: the attempt counts are bucketed by wall-clock
// minute, and the file may cross a minute's end before the pipeline page is read.
let firstMinute: number;

function expectError(res: { status: number; body: any }, status: number, code: string): string {
  expect(res.status).toBe(status);
  for (const entry of res.body.errors)
    expect(
      Object.keys(entry)
        .filter((k) => k !== 'source')
        .sort(),
    ).toEqual(['code', 'detail', 'status', 'title']);
  expect(res.body.errors[0]).toMatchObject({ status, code });
  return res.body.errors[0].detail;
}

beforeAll(async () => {
  gw = await startTestGateway({ ...TO_RECEIVERS, GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0' }, { clock });
  receiver = await startReceiver(
    () => [],
    () => (failing ? { status: 503, body: '<b>down</b> for maintenance' } : { status: 204 }),
  );
  firstMinute = Math.floor(Date.now() / 60_000) * 60_000;
  companyA = insertCompany(gw.store, 'A');
  companyB = insertCompany(gw.store, 'B');
  endpointA = insertEndpoint(gw.store, companyA, receiver.url).id;
  endpointB = insertEndpoint(gw.store, companyB, receiver.url).id;
  for (let i = 0; i < 4; i += 1)
    emitEvent(gw.store, companyA, 'message.create', { id: i, text: `<script>alert(${i})</script>` });
  emitEvent(gw.store, companyB);
  await eventually(
    'five failed deliveries',
    async () => (await gw.admin('GET', '/admin/deliveries?status=failed')).body.deliveries.length === 5,
  );
});
afterAll(async () => {
  await gw.close();
  await receiver.close();
});

describe('search and one delivery', () => {
  it('finds the deliveries of one event by its id, the webhook-id receivers saw', async () => {
    const [newest] = (await gw.admin('GET', `/admin/deliveries?company_id=${companyA}&limit=1`)).body.deliveries;
    const webhookId = receiver.received.find((r) => (r.body as { id: string }).id === newest.event_id)!.id;
    expect(webhookId).toBe(newest.event_id);
    const found = await gw.admin('GET', `/admin/deliveries?event_id=${encodeURIComponent(webhookId)}`);
    expect(found.body.deliveries.map((d: { id: string }) => d.id)).toEqual([newest.id]);
    expect((await gw.admin('GET', '/admin/deliveries?event_id=evt_nothing')).body.deliveries).toEqual([]);
    expectError(await gw.admin('GET', `/admin/deliveries?event_id=${'x'.repeat(101)}`), 422, 'validation_failed');
  });

  it('shows the event body the endpoint receives beside the delivery and its attempts', async () => {
    const [delivery] = (await gw.admin('GET', `/admin/deliveries?company_id=${companyB}`)).body.deliveries;
    const shown = await gw.admin('GET', `/admin/deliveries/${delivery.id}`);
    const sent = receiver.received.find((r) => r.id === delivery.event_id)!;
    expect(shown.body.event).toEqual(sent.body);
    expect(shown.body.attempts).toEqual([
      expect.objectContaining({
        number: 1,
        status_code: 503,
        response_body: '<b>down</b> for maintenance',
        outcome: 'failed',
      }),
    ]);
  });
});

describe('cancelling a bulk replay', () => {
  it('stops a running task: the page on its way still goes out, but the task stays cancelled and is never picked again', async () => {
    const replayer = gw.gateway.pipeline.replayer;
    const original = replayer.replay.bind(replayer);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The size of each page the worker replayed, in order.
    const pages: number[] = [];
    replayer.replay = async (deliveries) => {
      pages.push(deliveries.length);
      await held;
      return original(deliveries);
    };
    try {
      const created = await gw.admin('POST', '/admin/replays', { company_id: companyA, status: 'failed' });
      const id = created.body.task.id;
      await eventually('the worker holds the first page', () => pages.length === 1);
      const cancelled = await gw.admin('POST', `/admin/replays/${id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.task).toMatchObject({ id, status: 'cancelled', total: 4, enqueued: 0 });
      const receivedBefore = receiver.received.length;
      release();
      await eventually('the held page published', () => receiver.received.length === receivedBefore + 4);
      // A later task (created a millisecond after, so it comes second in the worker's order)
      // completes only once the worker has passed the cancelled one: it had its chance to go on.
      clock.advance(1);
      const later = (await gw.admin('POST', '/admin/replays', { company_id: companyB, status: 'delivered' })).body.task;
      await eventually(
        'the later task completed',
        async () => (await gw.admin('GET', `/admin/replays/${later.id}`)).body.task.status === 'completed',
      );
      expect((await gw.admin('GET', `/admin/replays/${id}`)).body.task).toMatchObject({
        status: 'cancelled',
        enqueued: 0,
      });
      expect(pages).toEqual([4, 0]);
      expect(receiver.received).toHaveLength(receivedBefore + 4);
      expectError(await gw.admin('POST', `/admin/replays/${id}/cancel`), 409, 'conflict');
    } finally {
      release();
      replayer.replay = original;
    }
  });

  it('answers 409 for a task that completed and 404 for an unknown one', async () => {
    const created = await gw.admin('POST', '/admin/replays', { company_id: companyB, status: 'delivered' });
    await eventually(
      'completed',
      async () => (await gw.admin('GET', `/admin/replays/${created.body.task.id}`)).body.task.status === 'completed',
    );
    expect(
      expectError(await gw.admin('POST', `/admin/replays/${created.body.task.id}/cancel`), 409, 'conflict'),
    ).toMatch(/completed already/);
    expectError(await gw.admin('POST', '/admin/replays/rpl_missing/cancel'), 404, 'not_found');
  });
});

describe('disabling and enabling an endpoint', () => {
  it('disables with the reason given, refuses replays while disabled, and enables again', async () => {
    const base = `/admin/companies/${companyB}/endpoints/${endpointB}`;
    const disabled = await gw.admin('POST', `${base}/disable`, { reason: 'receiver migrating' });
    expect(disabled.status).toBe(200);
    expect(disabled.body.endpoint).toMatchObject({
      endpoint_id: endpointB,
      active: false,
      disabled_reason: 'receiver migrating',
    });
    const [delivery] = (await gw.admin('GET', `/admin/deliveries?company_id=${companyB}`)).body.deliveries;
    expect(expectError(await gw.admin('POST', `/admin/deliveries/${delivery.id}/replay`), 409, 'conflict')).toMatch(
      /receiver migrating/,
    );
    // Operators' disables are not the gateway's: the disabled-endpoints gauge counts only those.
    expect((await gw.admin('GET', `/admin/companies/${companyB}/endpoints`)).body.endpoints[0]).toMatchObject({
      active: false,
      disabled_since: null,
    });

    const enabled = await gw.admin('POST', `${base}/enable`);
    expect(enabled.body.endpoint).toMatchObject({ active: true, disabled_reason: null });
    expect((await gw.admin('POST', `/admin/deliveries/${delivery.id}/replay`)).status).toBe(202);
  });

  it('takes a default reason, refuses a bad one, and finds no endpoint of another company', async () => {
    const base = `/admin/companies/${companyA}/endpoints/${endpointA}`;
    expect((await gw.admin('POST', `${base}/disable`)).body.endpoint.disabled_reason).toBe('disabled by an operator');
    expectError(await gw.admin('POST', `${base}/disable`, { reason: '' }), 422, 'validation_failed');
    expectError(await gw.admin('POST', `${base}/disable`, { reason: 'x'.repeat(201) }), 422, 'validation_failed');
    expectError(await gw.admin('POST', `/admin/companies/${companyB}/endpoints/${endpointA}/enable`), 404, 'not_found');
    expectError(await gw.admin('POST', `/admin/companies/${companyA}/endpoints/abc/enable`), 404, 'not_found');
    expect((await gw.admin('POST', `${base}/enable`)).body.endpoint.active).toBe(true);
  });
});

describe('the pipeline page', () => {
  it('counts the attempts in the minutes they were made and the error rate of the hour, and names each stream', async () => {
    const before = (await gw.admin('GET', '/admin/pipeline')).body;
    expect(before.attempts.per_minute).toHaveLength(60);
    const sinceStart = (before.attempts.per_minute as { start: string; failed: number }[]).filter(
      (m) => Date.parse(m.start) >= firstMinute,
    );
    expect(sinceStart.length).toBeGreaterThanOrEqual(1);
    const attemptedBefore = before.attempts.per_minute.reduce(
      (sum: number, m: { delivered: number; failed: number }) => sum + m.delivered + m.failed,
      0,
    );
    const failedSinceStart = sinceStart.reduce((sum, m) => sum + m.failed, 0);
    expect(failedSinceStart).toBeGreaterThanOrEqual(5);
    // A fresh gateway: every attempt it counts was made in those minutes, none before.
    expect(before.attempts.per_minute.reduce((sum: number, m: { failed: number }) => sum + m.failed, 0)).toBe(
      failedSinceStart,
    );
    failing = false;
    const [delivery] = (await gw.admin('GET', `/admin/deliveries?company_id=${companyA}&status=failed`)).body
      .deliveries;
    await gw.admin('POST', `/admin/deliveries/${delivery.id}/replay`);
    await eventually(
      'the replay delivered',
      async () => (await gw.admin('GET', `/admin/deliveries/${delivery.id}`)).body.delivery.status === 'delivered',
    );
    const after = (await gw.admin('GET', '/admin/pipeline')).body;
    const minutes = after.attempts.per_minute as { start: string; delivered: number; failed: number }[];
    const attempted = minutes.reduce((sum, m) => sum + m.delivered + m.failed, 0);
    const failedCount = minutes.reduce((sum, m) => sum + m.failed, 0);
    expect(attempted).toBeGreaterThanOrEqual(attemptedBefore + 1);
    expect(minutes.reduce((sum, m) => sum + m.delivered, 0)).toBeGreaterThanOrEqual(1);
    expect(after.attempts.error_rate).toBeCloseTo(failedCount / attempted, 3);
    expect(Date.parse(minutes[59]!.start) - Date.parse(minutes[0]!.start)).toBe(59 * 60_000);
    expect(after.streams.map((s: { stream: string }) => s.stream)).toEqual(
      expect.arrayContaining(['gateway.events', 'gateway.retries', 'gateway.replays', 'gateway.attempts']),
    );
    expect(after.outbox).toEqual({ pending: 0, oldest_created_at: null, lag_ms: 0 });
  });
});
