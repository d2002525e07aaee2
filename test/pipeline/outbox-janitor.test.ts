import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutboxJanitor, PUBLISHED_OUTBOX_RETENTION_MS } from '../../src/outbox/janitor.js';
import { Store } from '../../src/store/store.js';
import { ManualClock } from '../../src/streams/stream.js';
import { eventually, memoryLogger } from './wait.js';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-outbox-janitor-'));
  store = Store.open(path.join(dir, 'gateway.db'));
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const rows = () => store.db.prepare<[], { message_id: string }>('SELECT message_id FROM outbox ORDER BY id').all().map((r) => r.message_id);

describe('outbox janitor', () => {
  it('deletes published rows past the retention in batches, keeps pending ones however old, and stops at the first young row', async () => {
    const clock = new ManualClock(1_800_000_000_000);
    const old = clock.now() - PUBLISHED_OUTBOX_RETENTION_MS - 1_000;
    const young = clock.now() - 60_000;
    const append = (messageId: string, createdAt: number, published: boolean) => {
      store.outbox.append({ stream: 'gateway.events', key: '1', messageId, payload: {} }, createdAt);
      if (published) store.outbox.markPublishedHere([store.outbox.pendingHere(100).find((r) => r.message_id === messageId)!.id], createdAt + 1);
    };
    for (let n = 0; n < 5; n += 1) append(`old_${n}`, old + n, true);
    append('old_pending', old + 10, false);
    for (let n = 5; n < 8; n += 1) append(`old_${n}`, old + 20 + n, true);
    append('young', young, true);
    // Written after a young row with an older time (a clock stepped back): past the scan's stop.
    append('old_after_young', old + 100, true);

    const abort = new AbortController();
    const log = memoryLogger('debug');
    const janitor = new OutboxJanitor({ store, clock, logger: log.logger, batch: 3 }).run(abort.signal);
    // Logged once the whole pass is done (the next one is ten minutes away).
    await eventually('a pass of the janitor', () => log.text().includes('pruned published outbox rows'));
    abort.abort();
    await janitor;
    expect(log.text()).toContain('"deleted":8');
    expect(rows()).toEqual(['old_pending', 'young', 'old_after_young']);
    expect(store.outbox.lag()).toEqual({ pending: 1, oldestCreatedAt: old + 10 });
  });

  it('deletes nothing while every row is younger than the retention', () => {
    const now = 1_800_000_000_000;
    store.outbox.append({ stream: 'gateway.events', key: '1', messageId: 'a', payload: {} }, now - 1_000);
    store.outbox.markPublishedHere(store.outbox.pendingHere(1).map((r) => r.id), now);
    expect(store.outbox.prunePublished(now - PUBLISHED_OUTBOX_RETENTION_MS, 0, 100)).toEqual({ upto: null, deleted: 0 });
    expect(rows()).toEqual(['a']);
  });
});
