// Recording one attempt at a time in the store (docs/decisions.md, "In embedded mode the dispatcher
// records attempts itself" and "Auto-disable"): recordAttempt is idempotent, ignores deliveries the
// store never made, records attempts of deleted endpoints without health rows, and never moves a
// delivery back from delivered or out of its retry schedule on a failed manual attempt.
import { afterEach, describe, expect, it } from 'vitest';
import { endpointDisableRule } from '../../src/dispatch/endpoint-health.js';
import { attempt, deliveryFixture, openStore, runCleanups } from './recording-fixtures.js';

afterEach(runCleanups);

describe('recording attempts', () => {
  it('records an attempt of an endpoint deleted since, without touching its health', () => {
    const store = openStore();
    const d = deliveryFixture(store);
    store.db.prepare('DELETE FROM webhook_endpoints WHERE id = ?').run(d.endpointId);
    expect(() =>
      store.deliveries.recordAttempt(attempt(d, { outcome: 'failed' }), Date.now(), endpointDisableRule(86_400_000)),
    ).not.toThrow();
    expect(() =>
      store.deliveries.recordAttempt(
        attempt(d, { outcome: 'gone', status_code: 410 }),
        Date.now(),
        endpointDisableRule(86_400_000),
      ),
    ).not.toThrow();
    expect(store.deliveries.find(d.delivery.id)!.status).toBe('failed');
    expect(store.deliveries.attempts(d.delivery.id)).toHaveLength(2);
    expect(store.db.prepare('SELECT count(*) AS n FROM webhook_endpoint_health').get()).toEqual({ n: 0 });
  });

  it('records nothing for a delivery this store never made, and nothing twice', () => {
    const store = openStore();
    const d = deliveryFixture(store);
    const stranger = attempt({ ...d, delivery: { id: 'dlv_of_another_install' } }, { outcome: 'failed' });
    expect(store.deliveries.recordAttempt(stranger, Date.now(), endpointDisableRule(86_400_000))).toEqual({
      failed: [],
      disabled: [],
    });
    const once = attempt(d, { outcome: 'delivered', status_code: 200, error: null });
    store.deliveries.recordAttempt(once, Date.now(), endpointDisableRule(86_400_000));
    store.deliveries.recordAttempt(
      { ...once, outcome: 'failed', status_code: 500 },
      Date.now(),
      endpointDisableRule(86_400_000),
    );
    expect(store.db.prepare('SELECT delivery_id, outcome FROM webhook_attempts').all()).toEqual([
      { delivery_id: d.delivery.id, outcome: 'delivered' },
    ]);
    expect(store.deliveries.find(d.delivery.id)).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
      last_status_code: 200,
    });
  });

  it('leaves a scheduled delivery pending after a failed manual attempt, with its next_attempt_at', () => {
    const store = openStore();
    const d = deliveryFixture(store);
    store.deliveries.recordAttempt(
      attempt(d, { number: 1, outcome: 'retry', next_attempt_at: 2_000_000 }),
      Date.now(),
      endpointDisableRule(86_400_000),
    );
    store.deliveries.recordAttempt(
      attempt(d, { number: 2, trigger: 'manual', outcome: 'failed' }),
      Date.now(),
      endpointDisableRule(86_400_000),
    );
    expect(store.deliveries.find(d.delivery.id)).toMatchObject({
      status: 'pending',
      next_attempt_at: 2_000_000,
      attempt_count: 2,
    });
  });

  it('never moves a delivered delivery back (late or duplicate results, manual failures)', () => {
    const store = openStore();
    const d = deliveryFixture(store);
    store.deliveries.recordAttempt(
      attempt(d, { number: 2, outcome: 'delivered', status_code: 200, error: null }),
      Date.now(),
      endpointDisableRule(86_400_000),
    );
    store.deliveries.recordAttempt(
      attempt(d, { number: 1, outcome: 'retry', next_attempt_at: 2_000_000 }),
      Date.now(),
      endpointDisableRule(86_400_000),
    );
    store.deliveries.recordAttempt(
      attempt(d, { number: 2, outcome: 'failed' }),
      Date.now(),
      endpointDisableRule(86_400_000),
    );
    store.deliveries.recordAttempt(
      attempt(d, { number: 3, trigger: 'manual', outcome: 'failed' }),
      Date.now(),
      endpointDisableRule(86_400_000),
    );
    expect(store.deliveries.find(d.delivery.id)).toMatchObject({ status: 'delivered', next_attempt_at: null });
    expect(store.deliveries.attempts(d.delivery.id)).toHaveLength(4);
  });
});
