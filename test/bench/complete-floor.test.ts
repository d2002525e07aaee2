import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyCallbackGrouped } from '../../src/domain/incoming.js';
import { normalizeBotUpdate } from '../../src/ingest/bot.js';
import { createPresenters } from '../../src/presenters/presenters.js';
import { publicUrls } from '../../src/presenters/public-urls.js';
import type { Store } from '../../src/store/store.js';
import { insertCompany } from '../helpers/pipeline.js';
import { storePerTest } from '../helpers/temp-store.js';

// The bench's ratios to the complete floor (BENCHMARKS.md, "The floors") are the cost of the
// gateway's structure only while the floor does the contract's work: its events must be the
// gateway's, field for field, for the callbacks the bench sends. A field the contract gains in the
// gateway and not in the floor fails here instead of showing as the gateway's overhead.
const floors = path.resolve('scripts/bench/floors');
const { openFloorStore } = await import(path.join(floors, 'floor-store.mjs'));
const { callbackWriter } = await import(path.join(floors, 'floor-writes.mjs'));
const { botBody } = await import(path.resolve('scripts/bench/suite/load.mjs'));

let store: Store;
storePerTest('gateway-complete-floor-', (opened) => (store = opened));
const floorDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-complete-floor-'));
afterAll(() => fs.rmSync(floorDir, { recursive: true, force: true }));

/** The bench's callbacks: two messages of one sender, then one of another. */
const updates = [JSON.parse(botBody(1, 2, 1_000)), JSON.parse(botBody(3, 2, 1_000)), JSON.parse(botBody(2, 2, 1_000))];

/** The v2 envelopes the gateway writes for `updates`, in order. */
async function gatewayEvents(): Promise<any[]> {
  store.accounts.createWithToken('bench', 'digest');
  const companyId = insertCompany(store, 'company');
  const channel = store.channels.insert({
    companyId,
    provider: 'chat_b',
    state: 'enabled',
    settings: {},
    credentials: {},
  });
  const presenters = createPresenters(publicUrls(''));
  for (const update of updates)
    await store.grouped(() =>
      applyCallbackGrouped(store, { id: channel.id, api: 'v2' }, normalizeBotUpdate(update), presenters),
    );
  const rows = store.db.prepare('SELECT payload FROM outbox ORDER BY id').pluck().all() as string[];
  return rows.map((payload) => JSON.parse(payload).body);
}

/** The v2 envelopes the complete floor writes for `updates`, in order. */
function floorEvents(): any[] {
  const sql = openFloorStore(path.join(floorDir, 'floor.db'));
  const write = callbackWriter(sql);
  const events: any[] = [];
  for (const update of updates) {
    sql.begin.run();
    events.push(...write({ id: 1, companyId: 1, endpoint: 0 }, update.message, Date.now()));
    sql.commit.run();
  }
  return events.map((event) => JSON.parse(event.json));
}

/** The envelope with what differs by run and by writer (event ids, times) replaced by placeholders. */
function comparable(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => comparable(item));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v, k)]));
  if (key === 'id' && typeof value === 'string') return '<event id>';
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) && key !== 'external_created_at') return '<time>';
  return value;
}

describe('the complete floor of the bench', () => {
  it("writes the gateway's events for the bench's callbacks, field for field", async () => {
    const gateway = await gatewayEvents();
    const floor = floorEvents();
    expect(gateway.map((event) => `${event.type}.${event.event}`)).toEqual([
      'conversation.create',
      'message.create',
      'message.create',
      'conversation.create',
      'message.create',
    ]);
    expect(comparable(floor)).toEqual(comparable(gateway));
    // The comparison covers a count kept in the store: the sender's second message presents 2.
    expect(gateway[2].object.conversation.unread_count).toBe(2);
  });
});
