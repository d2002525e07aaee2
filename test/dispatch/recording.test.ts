import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReplayTaskWorker, type Replayer } from '../../src/dispatch/replay.js';
import type { AttemptRecord } from '../../src/dispatch/jobs.js';
import { Store } from '../../src/store/store.js';
import { ManualClock } from '../../src/streams/stream.js';
import { emitEvent, insertEndpoint } from '../pipeline/harness.js';
import { eventually, memoryLogger } from '../pipeline/wait.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function openStore(): Store {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-recording-'));
  const store = Store.open(path.join(dir, 'gateway.db'));
  cleanups.push(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

function deliveryFixture(store: Store) {
  const now = Date.now();
  store.db.prepare('INSERT INTO accounts (id, name, created_at) VALUES (1, ?, ?)').run('acct', now);
  const company = store.companies.insert({ accountId: 1, name: 'Acme', phone: null, description: null, webhookUrl: null }).id;
  const endpoint = insertEndpoint(store, company, 'https://example.com/hooks');
  const event = emitEvent(store, company);
  const [deliveryId] = store.deliveries.createForEvent(event, [store.webhooks.find(company, endpoint.id)!], now);
  return { company, endpointId: endpoint.id, delivery: store.deliveries.find(deliveryId!)! };
}

let seq = 0;
function attempt(d: { delivery: { id: string }; company: number; endpointId: number }, over: Partial<AttemptRecord>): AttemptRecord {
  seq += 1;
  return {
    id: `att_test_${seq}`,
    delivery_id: d.delivery.id,
    company_id: d.company,
    endpoint_id: d.endpointId,
    number: 1,
    trigger: 'auto',
    started_at: 1_000_000 + seq,
    duration_ms: 5,
    status_code: 500,
    response_body: null,
    error: 'the receiver answered 500',
    outcome: 'retry',
    next_attempt_at: null,
    ...over,
    // An automatic attempt's step of the schedule follows its number unless the test says otherwise.
    step: over.step !== undefined ? over.step : over.trigger === 'manual' ? null : (over.number ?? 1),
  };
}

describe('recording attempts', () => {
  it('records an attempt of an endpoint deleted since, without touching its health', () => {
    const store = openStore();
    const d = deliveryFixture(store);
    store.db.prepare('DELETE FROM webhook_endpoints WHERE id = ?').run(d.endpointId);
    expect(() => store.deliveries.recordAttempt(attempt(d, { outcome: 'failed' }), 86_400_000, Date.now())).not.toThrow();
    expect(() => store.deliveries.recordAttempt(attempt(d, { outcome: 'gone', status_code: 410 }), 86_400_000, Date.now())).not.toThrow();
    expect(store.deliveries.find(d.delivery.id)!.status).toBe('failed');
    expect(store.deliveries.attempts(d.delivery.id)).toHaveLength(2);
    expect(store.db.prepare('SELECT count(*) AS n FROM webhook_endpoint_health').get()).toEqual({ n: 0 });
  });

  it('leaves a scheduled delivery pending after a failed manual attempt, with its next_attempt_at', () => {
    const store = openStore();
    const d = deliveryFixture(store);
    store.deliveries.recordAttempt(attempt(d, { number: 1, outcome: 'retry', next_attempt_at: 2_000_000 }), 86_400_000, Date.now());
    store.deliveries.recordAttempt(attempt(d, { number: 2, trigger: 'manual', outcome: 'failed' }), 86_400_000, Date.now());
    expect(store.deliveries.find(d.delivery.id)).toMatchObject({ status: 'pending', next_attempt_at: 2_000_000, attempt_count: 2 });
  });

  it('never moves a delivered delivery back (late or duplicate results, manual failures)', () => {
    const store = openStore();
    const d = deliveryFixture(store);
    store.deliveries.recordAttempt(attempt(d, { number: 2, outcome: 'delivered', status_code: 200, error: null }), 86_400_000, Date.now());
    store.deliveries.recordAttempt(attempt(d, { number: 1, outcome: 'retry', next_attempt_at: 2_000_000 }), 86_400_000, Date.now());
    store.deliveries.recordAttempt(attempt(d, { number: 2, outcome: 'failed' }), 86_400_000, Date.now());
    store.deliveries.recordAttempt(attempt(d, { number: 3, trigger: 'manual', outcome: 'failed' }), 86_400_000, Date.now());
    expect(store.deliveries.find(d.delivery.id)).toMatchObject({ status: 'delivered', next_attempt_at: null });
    expect(store.deliveries.attempts(d.delivery.id)).toHaveLength(4);
  });
});

describe('bulk replay tasks', () => {
  it('tries a page that failed again, and completes the task once the stream is back', async () => {
    const store = openStore();
    const clock = new ManualClock();
    let calls = 0;
    const replayer = {
      replay: async () => {
        calls += 1;
        if (calls <= 2) throw new Error('stream unavailable: boom');
        return 0;
      },
    } as unknown as Replayer;
    const task = store.replayTasks.create({ status: 'failed' }, 0, clock.now());
    const abort = new AbortController();
    const { logger, text } = memoryLogger();
    const running = new ReplayTaskWorker({ store, replayer, clock, logger, idleMs: 10 }).run(abort.signal);
    await eventually('completed', () => store.replayTasks.find(task.id)!.status === 'completed');
    expect(calls).toBe(3);
    expect(store.replayTasks.find(task.id)).toMatchObject({ status: 'completed', error: null });
    expect(text()).toContain('bulk replay page failed; trying again');
    abort.abort();
    await running;
  });

  it('finishes a task that keeps throwing as failed, with the error, and goes on with the next one', async () => {
    const store = openStore();
    const clock = new ManualClock();
    const replayer = {
      replay: async () => {
        if (store.replayTasks.find(first.id)!.status === 'queued') throw new Error('stream unavailable: boom');
        return 0;
      },
    } as unknown as Replayer;
    const first = store.replayTasks.create({ status: 'failed' }, 0, clock.now());
    clock.advance(1);
    const second = store.replayTasks.create({ status: 'failed' }, 0, clock.now());
    const abort = new AbortController();
    const worker = new ReplayTaskWorker({ store, replayer, clock, logger: memoryLogger().logger, idleMs: 10, maxFailures: 2 });
    const running = worker.run(abort.signal);
    let crashed: unknown;
    running.catch((error: unknown) => (crashed = error));
    await eventually('the second task completed', () => store.replayTasks.find(second.id)!.status === 'completed');
    expect(store.replayTasks.find(first.id)).toMatchObject({ status: 'failed', error: 'stream unavailable: boom' });
    expect(crashed).toBeUndefined();
    abort.abort();
    await running;
  });
});
