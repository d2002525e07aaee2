import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from './store.js';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-outbox-'));
  store = Store.open(path.join(dir, 'gateway.db'));
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('outbox lag (shown at /healthz)', () => {
  it('counts unpublished rows and dates the oldest, until the relay marks them published', () => {
    expect(store.outbox.lag()).toEqual({ pending: 0, oldestCreatedAt: null });
    store.outbox.append({ stream: 'gateway.events', key: '1', messageId: 'evt_a', payload: { n: 1 } }, 1_000);
    store.outbox.append({ stream: 'gateway.outbound', key: '2', messageId: 'job_b', payload: { n: 2 } }, 2_000);
    expect(store.outbox.lag()).toEqual({ pending: 2, oldestCreatedAt: 1_000 });

    const [first] = store.outbox.pending(1);
    store.outbox.markPublished([first!.id], 3_000);
    expect(store.outbox.lag()).toEqual({ pending: 1, oldestCreatedAt: 2_000 });
    store.outbox.markPublished(store.outbox.pending(10).map((r) => r.id), 4_000);
    expect(store.outbox.lag()).toEqual({ pending: 0, oldestCreatedAt: null });
  });

  it('keeps the order rows were written in and refuses a second row with the same message id', () => {
    for (const id of ['evt_1', 'evt_2', 'evt_3']) store.outbox.append({ stream: 'gateway.events', key: '1', messageId: id, payload: {} });
    expect(store.outbox.pending(10).map((r) => r.message_id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(() => store.outbox.append({ stream: 'gateway.events', key: '1', messageId: 'evt_2', payload: {} })).toThrow(/UNIQUE/);
  });
});
