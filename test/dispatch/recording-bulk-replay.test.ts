// Bulk replay tasks (docs/decisions.md, "A manual replay is one attempt" and "Attempts of one
// transaction are recorded in one unit"): the attempts of one transaction recorded as a unit leave
// every row as recording them one by one does (checked against a model of the health rules,
// auto-disable included) with one health-row read and write per endpoint; the recorder records again
// after a failed transaction; the task worker retries failing pages and fails a task after too many.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptRecorder } from '../../src/dispatch/attempt-recorder.js';
import { endpointDisableRule } from '../../src/dispatch/endpoint-health.js';
import { ReplayTaskWorker, type Replayer } from '../../src/dispatch/replay.js';
import type { AttemptRecord } from '../../src/streams/catalog.js';
import type { AttemptEffects } from '../../src/store/deliveries/delivery-rows.js';
import type { Store } from '../../src/store/store.js';
import { SqliteStreamBus } from '../../src/streams/sqlite/sqlite-stream.js';
import { ManualClock } from '../../src/streams/stream.js';
import { emitEvent, insertEndpoint } from '../helpers/pipeline.js';
import { eventually, memoryLogger } from '../helpers/wait.js';
import { attempt, deliveryFixture, onCleanup, openStore, resetAttemptSeq, runCleanups } from './recording-fixtures.js';

afterEach(runCleanups);

describe('bulk replay tasks', () => {
  it('records a list of attempts leaving every row as recording them one by one does, with fewer health writes', () => {
    const healthRow = (store: Store, endpointId: number) =>
      store.db
        .prepare(
          'SELECT last_success_at, last_failure_at, failing_since, consecutive_failures FROM webhook_endpoint_health WHERE endpoint_id = ?',
        )
        .get(endpointId);
    const rowsOf = (store: Store) => ({
      deliveries: store.db
        .prepare('SELECT status, attempt_count, last_status_code, last_error FROM webhook_deliveries ORDER BY seq')
        .all(),
      attempts: store.db.prepare('SELECT id, outcome FROM webhook_attempts ORDER BY id').all(),
    });
    // Successes, a failure between them, a success again, and the same attempt twice.
    const outcomes: Partial<AttemptRecord>[] = [
      { outcome: 'delivered', status_code: 200, error: null },
      { outcome: 'delivered', status_code: 200, error: null },
      { outcome: 'retry', status_code: 500, next_attempt_at: 5_000_000 },
      { outcome: 'delivered', status_code: 200, error: null },
      { outcome: 'delivered', status_code: 204, error: null },
    ];
    const run = (batched: boolean) => {
      const store = openStore();
      const d = deliveryFixture(store);
      resetAttemptSeq();
      const list = outcomes.map((over) => attempt(d, over));
      list.push(list[4]!);
      const upserts = countStatements(store, 'INSERT INTO webhook_endpoint_health');
      if (batched)
        store.transaction(() => store.deliveries.applyAttempts(list, 2_000_000, endpointDisableRule(86_400_000)));
      else for (const a of list) store.deliveries.recordAttempt(a, 2_000_000, endpointDisableRule(86_400_000));
      return { health: healthRow(store, d.endpointId), rows: rowsOf(store), upserts: upserts() };
    };
    const oneByOne = run(false);
    const batched = run(true);
    expect(batched.health).toEqual(oneByOne.health);
    expect(batched.rows).toEqual(oneByOne.rows);
    expect(oneByOne.health).toEqual({
      last_success_at: 1_000_005,
      last_failure_at: 1_000_003,
      failing_since: null,
      consecutive_failures: 0,
    });
    // One by one: each of the five new attempts. In a list: one for the endpoint.
    expect(oneByOne.upserts).toBe(5);
    expect(batched.upserts).toBe(1);
  });

  it("reads an endpoint's failing streak once for a unit's failures, and writes its row once", () => {
    const store = openStore();
    const d = deliveryFixture(store);
    const reads = countStatements(store, 'SELECT failing_since FROM webhook_endpoint_health', 'get');
    const writes = countStatements(store, 'INSERT INTO webhook_endpoint_health');
    resetAttemptSeq();
    const failures = [1, 2, 3, 4, 5].map((number) =>
      attempt(d, { number, outcome: 'retry', next_attempt_at: 5_000_000 }),
    );
    store.transaction(() => store.deliveries.applyAttempts(failures, 2_000_000, endpointDisableRule(86_400_000)));
    expect({ reads: reads(), writes: writes() }).toEqual({ reads: 1, writes: 1 });
    expect(
      store.db
        .prepare('SELECT failing_since, consecutive_failures FROM webhook_endpoint_health WHERE endpoint_id = ?')
        .get(d.endpointId),
    ).toEqual({
      failing_since: 1_000_001,
      consecutive_failures: 5,
    });
  });

  it('leaves health rows and disabled endpoints as writing them attempt by attempt does, however the attempts are batched', () => {
    const disableAfterMs = 100_000;
    const step = fc.record({
      endpoint: fc.integer({ min: 0, max: 1 }),
      outcome: fc.constantFrom<AttemptRecord['outcome']>('delivered', 'retry', 'retry', 'failed', 'gone'),
      gap: fc.oneof(fc.integer({ min: 0, max: 10 }), fc.constant(60_000)),
      batchEnds: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), (steps) => {
        const store = openStore();
        const first = deliveryFixture(store);
        const second = { ...first, endpointId: insertEndpoint(store, first.company, 'https://example.org/hooks').id };
        second.delivery = store.deliveries.find(
          store.deliveries.createForEvent(emitEvent(store, first.company), [{ id: second.endpointId }], Date.now())[0]!,
        )!;
        const fixtures = [first, second];
        const rule = endpointDisableRule(disableAfterMs);
        const expected = new HealthModel(disableAfterMs);
        const disabled: AttemptEffects['disabled'] = [];
        let at = 1_000_000;
        let batch: AttemptRecord[] = [];
        const flush = () => {
          const list = batch;
          batch = [];
          disabled.push(...store.transaction(() => store.deliveries.applyAttempts(list, 2_000_000, rule)).disabled);
        };
        for (const [index, s] of steps.entries()) {
          at += s.gap;
          const over: Partial<AttemptRecord> =
            s.outcome === 'delivered'
              ? { outcome: 'delivered', status_code: 200, error: null }
              : { outcome: s.outcome };
          batch.push(attempt(fixtures[s.endpoint]!, { ...over, number: index + 1, started_at: at }));
          expected.apply(fixtures[s.endpoint]!.endpointId, s.outcome, at);
          if (s.batchEnds) flush();
        }
        flush();
        for (const { endpointId } of fixtures) {
          const row = store.db
            .prepare(
              'SELECT last_success_at, last_failure_at, failing_since, consecutive_failures, disabled_at FROM webhook_endpoint_health WHERE endpoint_id = ?',
            )
            .get(endpointId);
          expect(row).toEqual(expected.rowOf(endpointId));
        }
        expect(disabled).toEqual(expected.disabled);
      }),
      { numRuns: 60 },
    );
  });

  it('records again after a store transaction that failed before the attempts of its unit ran', async () => {
    const store = openStore();
    const d = deliveryFixture(store);
    const recorder = new AttemptRecorder({
      store,
      bus: new SqliteStreamBus(store.streamMessages, memoryLogger().logger),
      clock: new ManualClock(),
      disableAfterMs: 86_400_000,
      logger: memoryLogger().logger,
    });
    // A transaction left open on the connection: the group commit's BEGIN IMMEDIATE fails.
    store.db.exec('BEGIN');
    await expect(recorder.record(attempt(d, {}))).rejects.toThrow(/within a transaction/);
    if (store.db.inTransaction) store.db.exec('ROLLBACK');
    await recorder.record(attempt(d, { outcome: 'delivered', status_code: 200, error: null }));
    expect(store.deliveries.find(d.delivery.id)!.status).toBe('delivered');
  });

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
    const worker = new ReplayTaskWorker({
      store,
      replayer,
      clock,
      logger: memoryLogger().logger,
      idleMs: 10,
      maxFailures: 2,
    });
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

/** An endpoint's health as the contract's rules give it, attempt by attempt: the reference the store is checked against. */
class HealthModel {
  private readonly rows = new Map<
    number,
    {
      last_success_at: number | null;
      last_failure_at: number | null;
      failing_since: number | null;
      consecutive_failures: number;
      disabled_at: number | null;
    }
  >();
  readonly disabled: AttemptEffects['disabled'] = [];

  constructor(private readonly disableAfterMs: number) {}

  apply(endpointId: number, outcome: AttemptRecord['outcome'], at: number): void {
    const row = this.rows.get(endpointId) ?? {
      last_success_at: null,
      last_failure_at: null,
      failing_since: null,
      consecutive_failures: 0,
      disabled_at: null,
    };
    this.rows.set(endpointId, row);
    if (outcome === 'delivered') {
      Object.assign(row, { last_success_at: at, failing_since: null, consecutive_failures: 0 });
      return;
    }
    Object.assign(row, {
      last_failure_at: at,
      failing_since: row.failing_since ?? at,
      consecutive_failures: row.consecutive_failures + 1,
    });
    const reason =
      outcome === 'gone'
        ? 'the endpoint answered 410 Gone'
        : at - row.failing_since! >= this.disableAfterMs
          ? `no successful delivery for ${Math.round((this.disableAfterMs / 86_400_000) * 10) / 10} days`
          : null;
    if (reason === null || row.disabled_at !== null) return;
    row.disabled_at = at;
    this.disabled.push({ endpointId, reason });
  }

  rowOf(endpointId: number) {
    return this.rows.get(endpointId);
  }
}

/** Counts the runs of statements whose SQL starts with `prefix` (every connection's) from now until the test ends. */
function countStatements(store: Store, prefix: string, method: 'run' | 'get' = 'run'): () => number {
  let runs = 0;
  const proto = Object.getPrototypeOf(store.db.prepare('SELECT 1')) as Record<
    'run' | 'get',
    (...args: unknown[]) => unknown
  >;
  const original = proto[method];
  proto[method] = function (this: { source: string }, ...args: unknown[]) {
    if (this.source.trimStart().startsWith(prefix)) runs += 1;
    return original.apply(this, args);
  };
  onCleanup(() => {
    proto[method] = original;
  });
  return () => runs;
}
