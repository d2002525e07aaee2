import { describe, expect, it } from 'vitest';
import { OutboxJanitor, PUBLISHED_OUTBOX_RETENTION_MS } from '../../src/outbox/janitor.js';
import type { Store } from '../../src/store/store.js';
import { storePerTest } from '../helpers/temp-store.js';
import { ManualClock } from '../../src/streams/stream.js';
import { firstJanitorPass } from '../helpers/wait.js';

let store: Store;
storePerTest('gateway-outbox-janitor-', (opened) => (store = opened));

const rows = () =>
  store.db
    .prepare<[], { message_id: string }>('SELECT message_id FROM outbox ORDER BY id')
    .all()
    .map((r) => r.message_id);

describe('outbox janitor', () => {
  it('deletes published rows past the retention in batches, keeps pending ones however old, and stops at the first young row', async () => {
    const clock = new ManualClock(1_800_000_000_000);
    const old = clock.now() - PUBLISHED_OUTBOX_RETENTION_MS - 1_000;
    const young = clock.now() - 60_000;
    const append = (messageId: string, createdAt: number, published: boolean) => {
      store.outbox.append({ stream: 'gateway.events', key: '1', messageId, payload: {} }, createdAt);
      if (published)
        store.outbox.markPublishedHere(
          [store.outbox.pendingHere(100).find((r) => r.message_id === messageId)!.id],
          createdAt + 1,
        );
    };
    for (let n = 0; n < 5; n += 1) append(`old_${n}`, old + n, true);
    append('old_pending', old + 10, false);
    for (let n = 5; n < 8; n += 1) append(`old_${n}`, old + 20 + n, true);
    append('young', young, true);
    // Written after a young row with an older time (a clock stepped back): past the scan's stop.
    append('old_after_young', old + 100, true);

    const log = await firstJanitorPass(
      (logger, signal) => new OutboxJanitor({ store, clock, logger, batch: 3 }).run(signal),
      'published outbox rows',
    );
    expect(log).toContain('"deleted":8');
    expect(rows()).toEqual(['old_pending', 'young', 'old_after_young']);
    expect(store.outbox.lag()).toEqual({ pending: 1, oldestCreatedAt: old + 10 });
  });

  it('deletes nothing while every row is younger than the retention', () => {
    const now = 1_800_000_000_000;
    store.outbox.append({ stream: 'gateway.events', key: '1', messageId: 'a', payload: {} }, now - 1_000);
    store.outbox.markPublishedHere(
      store.outbox.pendingHere(1).map((r) => r.id),
      now,
    );
    expect(store.outbox.prunePublished(now - PUBLISHED_OUTBOX_RETENTION_MS, 0, 100)).toEqual({
      upto: null,
      deleted: 0,
    });
    expect(rows()).toEqual(['a']);
  });
});
