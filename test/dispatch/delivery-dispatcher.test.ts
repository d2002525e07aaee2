// The webhook dispatcher end to end on SQLite streams and a ManualClock (docs/decisions.md, "The retry
// schedule lives in the store", "A manual replay is one attempt", "Auto-disable", "SSRF" and
// "GATEWAY_WEBHOOK_TIMEOUT bounds the whole attempt"): Standard Webhooks signatures, retries, replays,
// disabling endpoints, refused private addresses and a hanging endpoint that holds back no other company.
import { afterEach, describe, expect, it } from 'vitest';
import { emitEvent, insertCompany, insertEndpoint, newSecret } from '../helpers/pipeline.js';
import { eventually } from '../helpers/wait.js';
import { attemptsOf, deliveryOf, receiver, runCleanups, setup } from './delivery-fixtures.js';

afterEach(runCleanups);

describe('webhook dispatcher (SQLite streams)', () => {
  it('delivers each event signed per Standard Webhooks, with the event body, only to endpoints that want it', async () => {
    const { gw } = await setup();
    const company = insertCompany(gw.store);
    const secret = newSecret();
    const r = await receiver(() => [secret]);
    insertEndpoint(gw.store, company, r.url, { secret });
    const filtered = await receiver(() => [secret]);
    insertEndpoint(gw.store, company, filtered.url, { secret, eventTypes: ['conversation.update'] });

    const event = emitEvent(gw.store, company, 'message.create', { id: 7, text: 'hello' });
    await eventually('the delivery', () => r.received.length === 1);
    const [hook] = r.received;
    expect(hook!.id).toBe(event.id);
    expect(hook!.verifiedBy).toEqual([0]);
    expect(hook!.body).toEqual(event.body);
    expect(hook!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    await eventually('recorded as delivered', () => deliveryOf(gw, event.id)?.status === 'delivered');
    expect(filtered.received).toHaveLength(0);
    expect(gw.logText()).not.toContain(secret.slice(6));
  });

  it('signs with both secrets during a rotation', async () => {
    const { gw } = await setup();
    const company = insertCompany(gw.store);
    const [current, previous] = [newSecret(), newSecret()];
    const r = await receiver(() => [current, previous]);
    insertEndpoint(gw.store, company, r.url, {
      secret: current,
      previousSecret: previous,
      previousExpiresAt: Date.now() + 86_400_000,
    });
    emitEvent(gw.store, company);
    await eventually('the delivery', () => r.received.length === 1);
    expect(r.received[0]!.verifiedBy).toEqual([0, 1]);
    expect(String(r.received[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
  });

  it('retries a 500 on the schedule and delivers later with the same webhook-id, recording each attempt', async () => {
    const { clock, gw } = await setup();
    const company = insertCompany(gw.store);
    const secret = newSecret();
    const r = await receiver(
      () => [secret],
      (n) => (n === 1 ? { status: 500, body: 'boom' } : { status: 200 }),
    );
    insertEndpoint(gw.store, company, r.url, { secret });
    const event = emitEvent(gw.store, company);
    await eventually('first attempt recorded', () => deliveryOf(gw, event.id)?.attempt_count === 1);
    const pending = deliveryOf(gw, event.id)!;
    expect(pending.status).toBe('pending');
    // Immediately, then 5 s ±20 %: nothing is due before the clock moves.
    expect(pending.next_attempt_at! - clock.now()).toBeGreaterThanOrEqual(4_000);
    expect(r.received).toHaveLength(1);
    clock.advance(6_001);
    await eventually('delivered on the second attempt', () => deliveryOf(gw, event.id)?.status === 'delivered');
    expect(r.received.map((h) => h.id)).toEqual([event.id, event.id]);
    const attempts = attemptsOf(gw, pending.id);
    expect(attempts.map((a) => [a.number, a.trigger, a.status_code, a.outcome])).toEqual([
      [1, 'auto', 500, 'retry'],
      [2, 'auto', 200, 'delivered'],
    ]);
    expect(attempts[0]!.response_body).toBe('boom');
    expect(attempts[0]!.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('honours Retry-After on 429 within its bound', async () => {
    const { clock, gw } = await setup();
    const company = insertCompany(gw.store);
    const r = await receiver(
      () => [],
      () => ({ status: 429, headers: { 'retry-after': '120' } }),
    );
    insertEndpoint(gw.store, company, r.url);
    const event = emitEvent(gw.store, company);
    await eventually('first attempt', () => deliveryOf(gw, event.id)?.attempt_count === 1);
    const wait = deliveryOf(gw, event.id)!.next_attempt_at! - clock.now();
    expect(wait).toBeGreaterThanOrEqual(120_000);
    expect(wait).toBeLessThanOrEqual(3_600_000);
  });

  it('disables the endpoint on 410 and shows it in endpoint health', async () => {
    const { gw } = await setup();
    const company = insertCompany(gw.store);
    const r = await receiver(
      () => [],
      () => ({ status: 410 }),
    );
    const endpoint = insertEndpoint(gw.store, company, r.url);
    const event = emitEvent(gw.store, company);
    await eventually('failed', () => deliveryOf(gw, event.id)?.status === 'failed');
    const health = await gw.admin('GET', `/admin/companies/${company}/endpoints`);
    expect(health.body.endpoints).toEqual([
      expect.objectContaining({
        endpoint_id: endpoint.id,
        active: false,
        disabled_reason: 'the endpoint answered 410 Gone',
        consecutive_failures: 1,
      }),
    ]);
    expect(health.body.endpoints[0].disabled_since).not.toBeNull();
  });

  it('fails after the whole schedule, then a manual replay from the admin API delivers it', async () => {
    const { clock, gw } = await setup();
    const company = insertCompany(gw.store);
    let up = false;
    const r = await receiver(
      () => [],
      () => (up ? { status: 200 } : { status: 503 }),
    );
    insertEndpoint(gw.store, company, r.url);
    const event = emitEvent(gw.store, company);
    for (let attempt = 1; attempt <= 8; attempt += 1) {
      await eventually(`attempt ${attempt}`, () => deliveryOf(gw, event.id)?.attempt_count === attempt);
      clock.advance(13 * 3_600_000); // past the longest delay (10 h + 20 %)
    }
    const failed = deliveryOf(gw, event.id)!;
    expect(failed.status).toBe('failed');
    expect(r.received).toHaveLength(8);
    expect(new Set(r.received.map((h) => h.id))).toEqual(new Set([event.id]));

    // A manual replay that fails is recorded and does not re-enter the schedule.
    const refused = await gw.admin('POST', `/admin/deliveries/${failed.id}/replay`);
    expect(refused.status).toBe(202);
    await eventually('manual attempt recorded', () => deliveryOf(gw, event.id)?.attempt_count === 9);
    expect(deliveryOf(gw, event.id)).toMatchObject({ status: 'failed', next_attempt_at: null });
    clock.advance(48 * 3_600_000);

    up = true;
    expect((await gw.admin('POST', `/admin/deliveries/${failed.id}/replay`)).status).toBe(202);
    await eventually('delivered by the replay', () => deliveryOf(gw, event.id)?.status === 'delivered');
    expect(r.received).toHaveLength(10);
    const shown = await gw.admin('GET', `/admin/deliveries/${failed.id}`);
    expect(shown.body.attempts.map((a: { trigger: string; outcome: string }) => `${a.trigger}:${a.outcome}`)).toEqual([
      ...Array(7).fill('auto:retry'),
      'auto:failed',
      'manual:failed',
      'manual:delivered',
    ]);
  });

  it('disables an endpoint that has not succeeded for five days', async () => {
    const { clock, gw } = await setup({ GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0' });
    const company = insertCompany(gw.store);
    const r = await receiver(
      () => [],
      () => ({ status: 500 }),
    );
    const endpoint = insertEndpoint(gw.store, company, r.url);
    const first = emitEvent(gw.store, company);
    await eventually('first failure', () => deliveryOf(gw, first.id)?.status === 'failed');
    clock.advance(4 * 86_400_000);
    const second = emitEvent(gw.store, company);
    await eventually('second failure', () => deliveryOf(gw, second.id)?.status === 'failed');
    expect((await gw.admin('GET', `/admin/companies/${company}/endpoints`)).body.endpoints[0].active).toBe(true);
    clock.advance(86_400_000);
    const third = emitEvent(gw.store, company);
    await eventually('third failure', () => deliveryOf(gw, third.id)?.status === 'failed');
    const health = (await gw.admin('GET', `/admin/companies/${company}/endpoints`)).body.endpoints[0];
    expect(health).toMatchObject({
      endpoint_id: endpoint.id,
      active: false,
      disabled_reason: 'no successful delivery for 5 days',
      consecutive_failures: 3,
    });
  });

  it('refuses private addresses unless allow-listed, recording a failed attempt', async () => {
    const { gw } = await setup({ GATEWAY_WEBHOOK_ALLOW_HOSTS: '', GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0' });
    const company = insertCompany(gw.store);
    const r = await receiver(() => []);
    insertEndpoint(gw.store, company, r.url); // 127.0.0.1 literal
    insertEndpoint(gw.store, company, `http://localhost:${r.port}/hooks`); // a name resolving to loopback: checked at connect time
    const event = emitEvent(gw.store, company);
    await eventually(
      'both failed',
      () =>
        (
          gw.store.db
            .prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE event_id = ? AND status = 'failed'")
            .get(event.id) as { n: number }
        ).n === 2,
    );
    expect(r.received).toHaveLength(0);
    // The attempts of the event's two deliveries, one each (GATEWAY_WEBHOOK_RETRY_SCHEDULE=0); the
    // delivery.failed each endpoint then gets of the other's failure is refused the same way.
    const errors = gw.store.db
      .prepare(
        'SELECT a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.event_id = ?',
      )
      .all(event.id) as { error: string }[];
    expect(errors).toHaveLength(2);
    for (const { error } of errors) expect(error).toMatch(/refused to connect to .*(loopback|private)/);
  });

  it('keeps delivering to a healthy company while another endpoint hangs', async () => {
    const { gw } = await setup({ GATEWAY_WEBHOOK_TIMEOUT: '60s' });
    const slowCompany = insertCompany(gw.store, 'Slow');
    const healthyCompany = insertCompany(gw.store, 'Healthy');
    const slow = await receiver(
      () => [],
      () => 'hang',
    );
    const healthy = await receiver(() => []);
    insertEndpoint(gw.store, slowCompany, slow.url);
    insertEndpoint(gw.store, healthyCompany, healthy.url);
    for (let i = 0; i < 10; i += 1) {
      emitEvent(gw.store, slowCompany);
      emitEvent(gw.store, healthyCompany);
    }
    await eventually('every healthy delivery', () => healthy.received.length === 10);
    // The hanging endpoint still holds its first request: none of its attempts has ended.
    expect(slow.hanging.length).toBeGreaterThanOrEqual(1);
    expect(
      gw.store.db
        .prepare(
          'SELECT count(*) AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.company_id = ?',
        )
        .get(slowCompany),
    ).toEqual({ n: 0 });
  });
});
