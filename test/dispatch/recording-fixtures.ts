// What the test/dispatch/recording-*.test.ts files share: a store file per call, removed when the
// test ends (with every other cleanup a test registers), a delivery of one event to one endpoint in
// it, and the attempt records the tests hand to the store and the recorder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AttemptRecord } from '../../src/streams/catalog.js';
import { Store } from '../../src/store/store.js';
import { emitEvent, insertEndpoint } from '../helpers/pipeline.js';

const cleanups: (() => void | Promise<void>)[] = [];

/** Registers `c` to run when the current test ends, after those registered later (see runCleanups). */
export function onCleanup(c: () => void | Promise<void>): void {
  cleanups.push(c);
}

/** Runs the cleanups registered since the last call, latest first: each file's afterEach. */
export async function runCleanups(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) await c();
}

export function openStore(): Store {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-recording-'));
  const store = Store.open(path.join(dir, 'gateway.db'));
  onCleanup(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

export function deliveryFixture(store: Store) {
  const now = Date.now();
  store.db.prepare('INSERT INTO accounts (id, name, created_at) VALUES (1, ?, ?)').run('acct', now);
  const company = store.companies.insert({
    accountId: 1,
    name: 'Acme',
    phone: null,
    description: null,
    webhookUrl: null,
  }).id;
  const endpoint = insertEndpoint(store, company, 'https://example.com/hooks');
  const event = emitEvent(store, company);
  const [deliveryId] = store.deliveries.createForEvent(event, [store.webhooks.find(company, endpoint.id)!], now);
  return { company, endpointId: endpoint.id, delivery: store.deliveries.find(deliveryId!)! };
}

let seq = 0;

/** Restarts the numbering of attempt(): the next one is att_test_1, started at 1_000_001. */
export function resetAttemptSeq(): void {
  seq = 0;
}

export function attempt(
  d: { delivery: { id: string }; company: number; endpointId: number },
  over: Partial<AttemptRecord>,
): AttemptRecord {
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
