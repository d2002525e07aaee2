import { describe, expect, it } from 'vitest';
import { WEBHOOK_RETENTION_DEFAULT_MS } from '../../src/config/webhooks.js';
import { DeliveryJanitor } from '../../src/dispatch/delivery-janitor.js';
import type { AttemptRecord } from '../../src/streams/catalog.js';
import type { WebhookEndpointRow } from '../../src/store/resources/webhooks.js';
import type { Store } from '../../src/store/store.js';
import { storePerTest } from '../helpers/temp-store.js';
import { ManualClock } from '../../src/streams/stream.js';
import { firstJanitorPass } from '../helpers/wait.js';
import { endpointDisableRule } from '../../src/dispatch/endpoint-health.js';

let store: Store;
storePerTest('gateway-delivery-janitor-', (opened) => (store = opened));

const ENDPOINT = { id: 7 } as WebhookEndpointRow;
const count = (table: string) => (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const left = () =>
  store.db
    .prepare<[], { event_id: string }>('SELECT event_id FROM webhook_deliveries ORDER BY seq')
    .all()
    .map((r) => r.event_id);

/** A delivery of event `name`, created at `createdAt`, then attempted at `attemptedAt` with `outcome` (none: pending, never attempted). */
function delivery(
  name: string,
  createdAt: number,
  attempt?: { at: number; outcome: AttemptRecord['outcome'] },
): string {
  const event = {
    id: `evt_${name}`,
    company_id: 1,
    name: 'message.create',
    created_at: new Date(createdAt).toISOString(),
    body: { text: name },
  };
  const [id] = store.deliveries.createForEvent(event, [ENDPOINT], createdAt);
  if (attempt !== undefined) record(attemptOf(id!, `att_${name}`, attempt.at, attempt.outcome));
  return id!;
}

/** An automatic first attempt of the delivery, answered 200 when delivered, 500 otherwise. */
function attemptOf(deliveryId: string, id: string, at: number, outcome: AttemptRecord['outcome']): AttemptRecord {
  return {
    id,
    delivery_id: deliveryId,
    company_id: 1,
    endpoint_id: ENDPOINT.id,
    number: 1,
    step: 1,
    trigger: 'auto',
    started_at: at,
    duration_ms: 3,
    status_code: outcome === 'delivered' ? 200 : 500,
    response_body: 'ok',
    error: null,
    outcome,
    next_attempt_at: outcome === 'retry' ? at + 5_000 : null,
  };
}

const record = (attempt: AttemptRecord) =>
  store.deliveries.recordAttempt(attempt, attempt.started_at, endpointDisableRule(5 * 86_400_000));

describe('delivery janitor', () => {
  it('deletes delivered and failed deliveries (with their attempts) whose last change is past the retention, keeps pending ones, stops at the first young one', async () => {
    const clock = new ManualClock(1_800_000_000_000);
    const old = clock.now() - WEBHOOK_RETENTION_DEFAULT_MS - 60_000;
    for (let n = 0; n < 4; n += 1) delivery(`old_delivered_${n}`, old + n, { at: old + n + 1, outcome: 'delivered' });
    delivery('old_failed', old + 10, { at: old + 11, outcome: 'failed' });
    delivery('old_pending', old + 20);
    delivery('old_retrying', old + 30, { at: old + 31, outcome: 'retry' });
    // Failed long ago but replayed (and failed again) yesterday: its retention counts from then.
    const replayed = delivery('old_replayed', old + 40, { at: old + 41, outcome: 'failed' });
    store.db
      .prepare('UPDATE webhook_deliveries SET updated_at = ? WHERE id = ?')
      .run(clock.now() - 86_400_000, replayed);
    for (let n = 4; n < 6; n += 1)
      delivery(`old_delivered_${n}`, old + 50 + n, { at: old + 51 + n, outcome: 'delivered' });
    delivery('young', clock.now() - 60_000, { at: clock.now() - 59_000, outcome: 'delivered' });
    // Created after a young one with an older time (a clock stepped back): past the scan's stop.
    delivery('old_after_young', old + 100, { at: old + 101, outcome: 'delivered' });
    expect(count('webhook_attempts')).toBe(11);

    const log = await firstJanitorPass(
      (logger, signal) => new DeliveryJanitor({ store, clock, logger, batch: 3 }).run(signal),
      'old webhook deliveries',
    );
    expect(log).toContain('"deleted":7');
    expect(left()).toEqual([
      'evt_old_pending',
      'evt_old_retrying',
      'evt_old_replayed',
      'evt_young',
      'evt_old_after_young',
    ]);
    // The deleted deliveries' attempts went with them (ON DELETE CASCADE).
    expect(
      store.db
        .prepare<[], { id: string }>('SELECT id FROM webhook_attempts ORDER BY id')
        .all()
        .map((r) => r.id),
    ).toEqual(['att_old_after_young', 'att_old_replayed', 'att_old_retrying', 'att_young']);
  });

  it('deletes nothing while every delivery is younger than the retention', () => {
    const now = 1_800_000_000_000;
    delivery('a', now - 1_000, { at: now - 900, outcome: 'delivered' });
    expect(store.deliveries.pruneFinished(now - WEBHOOK_RETENTION_DEFAULT_MS, 0, 100)).toEqual({
      upto: null,
      deleted: 0,
    });
    expect(left()).toEqual(['evt_a']);
  });

  it('records nothing for an attempt of a delivery deleted meanwhile (a replay in flight)', () => {
    const now = 1_800_000_000_000;
    const id = delivery('gone', now - WEBHOOK_RETENTION_DEFAULT_MS - 10_000, {
      at: now - WEBHOOK_RETENTION_DEFAULT_MS - 9_000,
      outcome: 'failed',
    });
    expect(store.deliveries.pruneFinished(now - WEBHOOK_RETENTION_DEFAULT_MS, 0, 100)).toEqual({ upto: 1, deleted: 1 });
    record({ ...attemptOf(id, 'att_late', now, 'delivered'), number: 2, step: null, trigger: 'manual' });
    expect([count('webhook_deliveries'), count('webhook_attempts')]).toEqual([0, 0]);
  });
});
