import { describe, expect, it } from 'vitest';
import type { Store } from '../store.js';
import { storePerTest } from '../../../test/helpers/temp-store.js';

let store: Store;
storePerTest('gateway-outbox-', (opened) => (store = opened));

describe('outbox lag (shown at /healthz)', () => {
  it('counts unpublished rows and dates the oldest, until the relay marks them published', () => {
    expect(store.outbox.lag()).toEqual({ pending: 0, oldestCreatedAt: null });
    store.outbox.append({ stream: 'gateway.events', key: '1', messageId: 'evt_a', payload: { n: 1 } }, 1_000);
    store.outbox.append({ stream: 'gateway.outbound', key: '2', messageId: 'job_b', payload: { n: 2 } }, 2_000);
    expect(store.outbox.lag()).toEqual({ pending: 2, oldestCreatedAt: 1_000 });

    const [first] = store.outbox.pendingHere(1);
    store.outbox.markPublishedHere([first!.id], 3_000);
    expect(store.outbox.lag()).toEqual({ pending: 1, oldestCreatedAt: 2_000 });
    store.outbox.markPublishedHere(
      store.outbox.pendingHere(10).map((r) => r.id),
      4_000,
    );
    expect(store.outbox.lag()).toEqual({ pending: 0, oldestCreatedAt: null });
  });

  it('keeps the order rows were written in and refuses a second row with the same message id', () => {
    for (const id of ['evt_1', 'evt_2', 'evt_3'])
      store.outbox.append({ stream: 'gateway.events', key: '1', messageId: id, payload: {} });
    expect(store.outbox.pendingHere(10).map((r) => r.message_id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(() => store.outbox.append({ stream: 'gateway.events', key: '1', messageId: 'evt_2', payload: {} })).toThrow(
      /UNIQUE/,
    );
  });
});

describe('publishing in group commits (the relay on the embedded streams)', () => {
  type Call = { pending: string[]; appended: string[] };
  const rowsOf = () =>
    store.db
      .prepare<[], { message_id: string; published: number }>(
        'SELECT message_id, published_at IS NOT NULL AS published FROM outbox ORDER BY id',
      )
      .all()
      .map((r) => `${r.message_id}${r.published ? '' : ' (pending)'}`);
  const append = (messageId: string) =>
    store.outbox.append({ stream: 'gateway.events', key: '1', messageId, payload: { messageId } }, 1_000);

  /** A publisher that records what it was given and marks the pending rows, as the relay does. */
  function recording(batchSize = 100, fail: () => boolean = () => false) {
    const calls: Call[] = [];
    const errors: unknown[] = [];
    const stop = store.outbox.publishInCommits({
      batchSize,
      publish: (pending, appended) => {
        calls.push({ pending: pending.map((r) => r.message_id), appended: appended.map((r) => r.message_id) });
        store.outbox.markPublishedHere(
          pending.map((r) => r.id),
          2_000,
        );
        if (fail()) throw new Error('publish broke');
        return undefined;
      },
      onError: (error) => errors.push(error),
    });
    return { calls, errors, stop };
  }

  it("hands a unit's messages to the publisher in the unit's commit, without writing a row", async () => {
    const { calls, stop } = recording();
    await store.grouped(() => {
      append('evt_1');
      append('evt_2');
    });
    expect(calls).toEqual([{ pending: [], appended: ['evt_1', 'evt_2'] }]);
    expect(rowsOf()).toEqual([]);
    expect(store.outbox.lag().pending).toBe(0);
    stop();
    // Off: an append in a unit is a pending row again.
    await store.grouped(() => append('evt_3'));
    expect(rowsOf()).toEqual(['evt_3 (pending)']);
  });

  it('hands over nothing of a unit that failed, nor of a transaction inside a unit that failed and was caught', async () => {
    const { calls, stop } = recording();
    const failed = store.grouped(() => {
      append('evt_lost');
      throw new Error('unit broke');
    });
    const kept = store.grouped(() => {
      append('evt_kept');
      try {
        store.transaction(() => {
          append('evt_undone');
          throw new Error('nested broke');
        });
      } catch {
        // the unit goes on without it
      }
      append('evt_after');
    });
    await expect(failed).rejects.toThrow('unit broke');
    await kept;
    expect(calls).toEqual([{ pending: [], appended: ['evt_kept', 'evt_after'] }]);
    expect(rowsOf()).toEqual([]);
    stop();
  });

  it('writes the messages as pending rows, and the units committed, when the publisher fails', async () => {
    let failing = true;
    const { calls, errors, stop } = recording(100, () => failing);
    await store.grouped(() => append('evt_1'));
    expect(errors).toEqual([new Error('publish broke')]);
    expect(rowsOf()).toEqual(['evt_1 (pending)']);
    // The next commit's publish takes them from the table, before that commit's own rows.
    failing = false;
    await store.grouped(() => append('evt_2'));
    expect(calls.at(-1)).toEqual({ pending: ['evt_1'], appended: ['evt_2'] });
    expect(rowsOf()).toEqual(['evt_1']);
    stop();
  });

  it('keeps the order when more rows wait than one batch: the commit writes its own messages pending behind them', async () => {
    for (const id of ['evt_1', 'evt_2', 'evt_3']) append(id);
    const { calls, stop } = recording(2);
    await store.grouped(() => append('evt_4'));
    expect(calls).toEqual([{ pending: ['evt_1', 'evt_2'], appended: [] }]);
    expect(rowsOf()).toEqual(['evt_1', 'evt_2', 'evt_3 (pending)', 'evt_4 (pending)']);
    await store.grouped(() => append('evt_5'));
    await store.grouped(() => append('evt_6'));
    expect(calls.slice(1)).toEqual([
      { pending: ['evt_3', 'evt_4'], appended: [] },
      { pending: ['evt_5'], appended: ['evt_6'] },
    ]);
    expect(rowsOf()).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5']);
    stop();
  });
});

describe('waiting for the next append (the relay loop)', () => {
  it('calls a waiter once, soon after an append, and keeps none that unsubscribed', async () => {
    let woken = 0;
    store.outbox.whenAppended(() => (woken += 1));
    // Waits that ended otherwise (an idle relay's pauses that ran out) leave nothing behind.
    for (let i = 0; i < 100; i += 1) store.outbox.whenAppended(() => (woken += 100))();
    expect(store.outbox.appendWaiting).toBe(1);

    store.outbox.append({ stream: 'gateway.events', key: '1', messageId: 'evt_wake', payload: {} });
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toBe(1);
    expect(store.outbox.appendWaiting).toBe(0);
    store.outbox.append({ stream: 'gateway.events', key: '1', messageId: 'evt_again', payload: {} });
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toBe(1);
  });
});
