// Retries scheduled by the core (docs/decisions.md, "The retry schedule lives in the store" and
// "Attempt numbers and schedule steps are separate"): each retry is built from the endpoint as it is
// when due (address, secrets, enabled), a manual attempt does not use up the schedule, and a retry the
// stream refuses stays due. The clock is a ManualClock moved through the schedule.
import { afterEach, describe, expect, it } from 'vitest';
import { rotateSecret } from '../../src/domain/webhook-endpoints.js';
import { emitEvent, insertCompany, insertEndpoint, newSecret } from '../helpers/pipeline.js';
import { eventually } from '../helpers/wait.js';
import { attemptsOf, deliveryOf, receiver, runCleanups, setup } from './delivery-fixtures.js';

afterEach(runCleanups);

describe('retries are scheduled by the core with the endpoint as it is when they are due', () => {
  it('sends a retry to the address the endpoint has now', async () => {
    const { clock, gw } = await setup();
    const company = insertCompany(gw.store);
    const old = await receiver(
      () => [],
      () => ({ status: 500 }),
    );
    const moved = await receiver(() => []);
    const endpoint = insertEndpoint(gw.store, company, old.url);
    const event = emitEvent(gw.store, company);
    await eventually('first attempt', () => deliveryOf(gw, event.id)?.attempt_count === 1);
    gw.store.webhooks.update(gw.store.webhooks.find(company, endpoint.id)!, { url: moved.url });
    clock.advance(6_001);
    await eventually('delivered at the new address', () => deliveryOf(gw, event.id)?.status === 'delivered');
    expect(old.received.map((h) => h.id)).toEqual([event.id]);
    expect(moved.received.map((h) => h.id)).toEqual([event.id]);
  });

  it('signs a retry due after a rotation expired with the new secret only', async () => {
    const { clock, gw } = await setup();
    const company = insertCompany(gw.store);
    const original = newSecret();
    let secrets = [original];
    const r = await receiver(
      () => secrets,
      (n) => (n < 4 ? { status: 500 } : { status: 200 }),
    );
    const endpoint = insertEndpoint(gw.store, company, r.url, { secret: original });
    const event = emitEvent(gw.store, company);
    await eventually('first attempt', () => deliveryOf(gw, event.id)?.attempt_count === 1);
    const rotated = rotateSecret(gw.store, endpoint.id, clock.now())!;
    secrets = [rotated.secret, original];
    // Attempts 2 and 3 (5 s, 5 min) fall inside the 24 h overlap: both secrets sign.
    for (const [attempt, wait] of [
      [2, 6_001],
      [3, 360_001],
    ] as const) {
      clock.advance(wait);
      await eventually(`attempt ${attempt}`, () => deliveryOf(gw, event.id)?.attempt_count === attempt);
    }
    expect(r.received.map((h) => h.verifiedBy)).toEqual([[0], [0, 1], [0, 1]]);
    // Attempt 4 after the overlap ended: signed with the new secret alone.
    clock.advance(25 * 3_600_000);
    await eventually('delivered', () => deliveryOf(gw, event.id)?.status === 'delivered');
    expect(r.received.at(-1)!.verifiedBy).toEqual([0]);
    expect(String(r.received.at(-1)!.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('holds a waiting retry whose endpoint was disabled meanwhile, without an attempt, and sends it once the endpoint is enabled', async () => {
    const { clock, gw } = await setup();
    const company = insertCompany(gw.store);
    let up = false;
    const r = await receiver(
      () => [],
      () => (up ? { status: 200 } : { status: 500 }),
    );
    const endpoint = insertEndpoint(gw.store, company, r.url);
    const event = emitEvent(gw.store, company);
    await eventually('first attempt', () => deliveryOf(gw, event.id)?.attempt_count === 1);
    gw.store.webhooks.update(gw.store.webhooks.find(company, endpoint.id)!, { active: false });
    clock.advance(6_001);
    await eventually(
      'held',
      () => gw.store.deliveries.find(deliveryOf(gw, event.id)!.id)!.held_reason === 'endpoint_disabled',
    );
    const held = gw.store.deliveries.find(deliveryOf(gw, event.id)!.id)!;
    expect(held).toMatchObject({ status: 'pending', attempt_count: 1, next_attempt_at: null });
    expect((await gw.admin('GET', `/admin/deliveries/${held.id}`)).body.delivery).toMatchObject({
      status: 'held',
      held_reason: 'endpoint_disabled',
    });
    expect(r.received).toHaveLength(1);

    up = true;
    expect((await gw.admin('POST', `/admin/companies/${company}/endpoints/${endpoint.id}/enable`)).status).toBe(200);
    await eventually('delivered once enabled', () => deliveryOf(gw, event.id)?.status === 'delivered');
    expect(attemptsOf(gw, held.id).map((a) => [a.number, a.trigger, a.outcome])).toEqual([
      [1, 'auto', 'retry'],
      [2, 'auto', 'delivered'],
    ]);
  });

  it('numbers a manual attempt among all attempts without using up the automatic schedule', async () => {
    const { clock, gw } = await setup({ GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0,5s,5s' });
    const company = insertCompany(gw.store);
    const r = await receiver(
      () => [],
      () => ({ status: 500 }),
    );
    insertEndpoint(gw.store, company, r.url);
    const event = emitEvent(gw.store, company);
    await eventually('first attempt', () => deliveryOf(gw, event.id)?.attempt_count === 1);
    const id = deliveryOf(gw, event.id)!.id;
    expect((await gw.admin('POST', `/admin/deliveries/${id}/replay`)).status).toBe(202);
    await eventually('manual attempt', () => deliveryOf(gw, event.id)?.attempt_count === 2);
    for (const attempt of [3, 4]) {
      clock.advance(6_001);
      await eventually(`attempt ${attempt}`, () => deliveryOf(gw, event.id)?.attempt_count === attempt);
    }
    await eventually('failed', () => deliveryOf(gw, event.id)?.status === 'failed');
    expect(attemptsOf(gw, id).map((a) => [a.number, a.trigger, a.outcome])).toEqual([
      [1, 'auto', 'retry'],
      [2, 'manual', 'failed'],
      [3, 'auto', 'retry'],
      [4, 'auto', 'failed'],
    ]);
  });

  it('keeps a due retry due when the stream refuses it, and hands it out once the stream is back', async () => {
    const { clock, gw } = await setup();
    const company = insertCompany(gw.store);
    const r = await receiver(
      () => [],
      (n) => (n === 1 ? { status: 500 } : { status: 200 }),
    );
    insertEndpoint(gw.store, company, r.url);
    const event = emitEvent(gw.store, company);
    await eventually('first attempt', () => deliveryOf(gw, event.id)?.attempt_count === 1);
    const dueAt = deliveryOf(gw, event.id)!.next_attempt_at!;
    const bus = gw.gateway.pipeline.bus;
    const publish = bus.publish.bind(bus);
    let refused = 0;
    bus.publish = async (stream, messages) => {
      if (stream === 'gateway.retries') {
        refused += 1;
        throw new Error('stream down');
      }
      return publish(stream, messages);
    };
    clock.advance(6_001);
    await eventually('the scheduler tried', () => refused >= 1);
    expect(deliveryOf(gw, event.id)).toMatchObject({ status: 'pending', next_attempt_at: dueAt });
    bus.publish = publish;
    await eventually('delivered once the stream is back', () => deliveryOf(gw, event.id)?.status === 'delivered');
    expect(r.received).toHaveLength(2);
  });
});
