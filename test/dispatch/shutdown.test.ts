// A graceful stop while an endpoint's attempt hangs: the running attempt finishes (here: times out)
// and is recorded; the endpoint's later attempts (first ones, or retries), handed to the poster
// behind it, are not sent. They were kept in memory only (no stream row): the next start finds them
// unsent from their pending deliveries and sends them.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startGateway, type RunningGateway } from '../../src/roles/server.js';
import { emitEvent, insertCompany, insertEndpoint, newSecret } from '../helpers/pipeline.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually, memoryLogger } from '../helpers/wait.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A gateway's configuration on a store of its own, attempts timing out after 1 s. */
function configOnFreshStore(more: Record<string, string> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-shutdown-'));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  return loadConfig({
    GATEWAY_PORT: '0',
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_BOOTSTRAP_TOKEN: `gwk_${randomBytes(16).toString('hex')}`,
    GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    GATEWAY_WEBHOOK_TIMEOUT: '1s',
    ...more,
  });
}

describe('dispatcher shutdown', () => {
  it('finishes the running attempt, leaves the queued ones unsent, and sends them after the next start', async () => {
    const config = configOnFreshStore();
    const secret = newSecret();
    // The first request hangs (until the attempt's timeout); every later one is answered 200.
    const receiver = await startReceiver(
      () => [secret],
      (n) => (n === 1 ? 'hang' : { status: 200 }),
    );
    cleanups.push(() => receiver.close());

    let gateway: RunningGateway | null = await startGateway(config, memoryLogger().logger);
    cleanups.push(() => gateway?.close());
    const company = insertCompany(gateway.store);
    insertEndpoint(gateway.store, company, receiver.url, { secret });
    const events = [1, 2, 3].map((id) => emitEvent(gateway!.store, company, 'message.create', { id }));
    await eventually('the first event sent (and hanging)', () => receiver.received.length === 1);
    // The two others reach the poster behind it.
    const deliveries = gateway.store.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM webhook_deliveries');
    await eventually('the three deliveries made', () => deliveries.get()!.n === 3);
    // A job leaves the stream log once the dispatcher has handed it to the poster.
    const streamRows = gateway.store.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM stream_messages');
    await eventually('the two others handed to the poster', () => streamRows.get()!.n === 0);

    const closing = gateway;
    gateway = null;
    await closing.close();
    expect(receiver.received.map((r) => r.id)).toEqual([events[0]!.id]);

    const restarted = memoryLogger('info');
    gateway = await startGateway(config, restarted.logger);
    await eventually('the later events delivered after the restart', () => receiver.received.length >= 3);
    expect(receiver.received.slice(1).map((r) => r.id)).toEqual([events[1]!.id, events[2]!.id]);
    expect(receiver.received.map((r) => r.verifiedBy)).toEqual([[0], [0], [0]]);
    expect(restarted.text()).toContain(
      '"deliveries":2,"msg":"automatic attempts left unsent by the last run are due now"',
    );
    const store = gateway.store;
    const statusOf = (eventId: string) =>
      store.db
        .prepare<[string], { status: string; attempt_count: number; auto_attempts: number }>(
          'SELECT status, attempt_count, auto_attempts FROM webhook_deliveries WHERE event_id = ?',
        )
        .get(eventId)!;
    await eventually(
      'both recorded as delivered',
      () => statusOf(events[1]!.id).status === 'delivered' && statusOf(events[2]!.id).status === 'delivered',
    );
    // Sent as their first step of the schedule, once each.
    expect([statusOf(events[1]!.id), statusOf(events[2]!.id)]).toEqual([
      { status: 'delivered', attempt_count: 1, auto_attempts: 1 },
      { status: 'delivered', attempt_count: 1, auto_attempts: 1 },
    ]);
    // The attempt that hung was recorded before the stop, as a timeout to retry.
    expect(statusOf(events[0]!.id)).toEqual({ status: 'pending', attempt_count: 1, auto_attempts: 1 });
    expect(
      store.deliveries.attempts(
        store.db
          .prepare<[string], { id: string }>('SELECT id FROM webhook_deliveries WHERE event_id = ?')
          .get(events[0]!.id)!.id,
      ),
    ).toMatchObject([{ outcome: 'retry', error: 'timed out waiting for the receiver' }]);
  });

  it('leaves a retry queued behind a hanging one unsent, and sends it as the next step after the next start', async () => {
    const config = configOnFreshStore({
      GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0, 100ms, 1m',
      GATEWAY_WEBHOOK_RETRY_JITTER: '0',
    });
    const secret = newSecret();
    // Both first attempts fail; the first retry hangs (until the attempt's timeout); later ones get 200.
    const receiver = await startReceiver(
      () => [secret],
      (n) => (n <= 2 ? { status: 500 } : n === 3 ? 'hang' : { status: 200 }),
    );
    cleanups.push(() => receiver.close());

    let gateway: RunningGateway | null = await startGateway(config, memoryLogger().logger);
    cleanups.push(() => gateway?.close());
    const store = () => gateway!.store;
    const company = insertCompany(store());
    insertEndpoint(store(), company, receiver.url, { secret });
    const events = [1, 2].map((id) => emitEvent(store(), company, 'message.create', { id }));
    await eventually('a retry sent (and hanging)', () => receiver.received.length === 3);
    const hanging = receiver.received[2]!.id;
    const queued = events.map((e) => e.id).find((id) => id !== hanging)!;
    // The other retry reaches the poster behind it, handed out by the scheduler, with no stream row.
    const deliveryOf = (eventId: string) =>
      store()
        .db.prepare<
          [string],
          { status: string; attempt_count: number; auto_attempts: number; next_attempt_at: number | null }
        >('SELECT status, attempt_count, auto_attempts, next_attempt_at FROM webhook_deliveries WHERE event_id = ?')
        .get(eventId)!;
    await eventually('both retries handed out', () => deliveryOf(queued).next_attempt_at === null);
    // A job leaves the stream log once the dispatcher has handed it to the poster.
    const streamRows = store().db.prepare<[], { n: number }>('SELECT count(*) AS n FROM stream_messages');
    await eventually('the other retry handed to the poster', () => streamRows.get()!.n === 0);

    const closing = gateway;
    gateway = null;
    await closing.close();
    expect(receiver.received).toHaveLength(3);

    const restarted = memoryLogger('info');
    gateway = await startGateway(config, restarted.logger);
    expect(restarted.text()).toContain(
      '"deliveries":1,"msg":"automatic attempts left unsent by the last run are due now"',
    );
    await eventually('the queued retry delivered after the restart', () => deliveryOf(queued).status === 'delivered');
    // Sent once, as the schedule's second step, with the webhook-id of its first attempt.
    expect(receiver.received.map((r) => r.id)).toEqual([...receiver.received.slice(0, 3).map((r) => r.id), queued]);
    expect(receiver.received[3]!.verifiedBy).toEqual([0]);
    expect(deliveryOf(queued)).toEqual({
      status: 'delivered',
      attempt_count: 2,
      auto_attempts: 2,
      next_attempt_at: null,
    });
    // The retry that hung was recorded before the stop, as a timeout to retry at the next step.
    expect(deliveryOf(hanging)).toMatchObject({ status: 'pending', attempt_count: 2, auto_attempts: 2 });
  });
});
