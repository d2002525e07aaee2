import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RECEIPT_RETENTION_MS, ReceiptJanitor } from '../../src/ingest/receipt-janitor.js';
import { Store } from '../../src/store/store.js';
import { ManualClock } from '../../src/streams/stream.js';
import { eventually, memoryLogger } from '../helpers/wait.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function storeWithChannel(): { store: Store; channelId: number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-receipts-'));
  const store = Store.open(path.join(dir, 'gateway.db'));
  cleanups.push(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const now = Date.now();
  store.db.prepare('INSERT INTO accounts (id, name, created_at) VALUES (1, ?, ?)').run('acct', now);
  const company = store.companies.insert({
    accountId: 1,
    name: 'Acme',
    phone: null,
    description: null,
    webhookUrl: null,
  }).id;
  const channelId = (
    store.db
      .prepare(
        `INSERT INTO channels (company_id, provider, state, created_at, updated_at) VALUES (?, 'chat_b', 'enabled', ?, ?) RETURNING id`,
      )
      .get(company, now, now) as { id: number }
  ).id;
  return { store, channelId };
}

describe('callback receipts', () => {
  it('are pruned once older than the retention, in batches, and a pruned key can be claimed again', async () => {
    const { store, channelId } = storeWithChannel();
    const clock = new ManualClock(1_700_000_000_000);
    const old = clock.now() - RECEIPT_RETENTION_MS - 1;
    for (let i = 0; i < 25; i += 1) expect(store.callbacks.claimReceipt(channelId, `update:${i}`, old)).toBe(true);
    expect(store.callbacks.claimReceipt(channelId, 'update:recent', clock.now() - 1_000)).toBe(true);

    const abort = new AbortController();
    const janitor = new ReceiptJanitor({ store, clock, logger: memoryLogger().logger, batch: 10 }).run(abort.signal);
    const count = () => (store.db.prepare('SELECT count(*) AS n FROM callback_receipts').get() as { n: number }).n;
    await eventually('old receipts pruned', () => count() === 1);
    abort.abort();
    await janitor;

    expect(store.callbacks.claimReceipt(channelId, 'update:recent', clock.now())).toBe(false);
    expect(store.callbacks.claimReceipt(channelId, 'update:3', clock.now())).toBe(true);
  });
});
