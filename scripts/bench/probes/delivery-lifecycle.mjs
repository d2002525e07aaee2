#!/usr/bin/env node
// A successful delivery's life in SQL alone, the daemon's store against the complete floor's: per
// event, its delivery written in one transaction (the daemon's `createForEvent`, the floor's outbox
// row) and its attempt recorded in the next (the daemon's `applyAttempts`, the floor's delivery row,
// attempt row and published mark), 32 events per transaction over 32 companies. One process and no
// HTTP, so its CPU per event moves little with the machine: the figure to compare a change to how
// deliveries are stored, before and after. Needs a build.
//
//   node scripts/bench/probes/delivery-lifecycle.mjs gateway|floor [events=40000]
//   node scripts/bench/probes/delivery-lifecycle.mjs gateway --repo=<other checkout>   that checkout's dist/
//   node scripts/bench/probes/delivery-lifecycle.mjs gateway --narrow   the delivery rows without the event's text (a
//                                                                reference of 40 bytes): what keeping the text once,
//                                                                beside the event, would spare a delivery
//   node scripts/bench/probes/delivery-lifecycle.mjs gateway --narrow --events-table   the same, with each event's text
//                                                                written once in a table of events (rowid-keyed),
//                                                                which the narrow rows would need
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { insertBenchEndpoint, ROOT } from '../suite/lib.mjs';
import { openFloorStore } from '../floors/floor-store.mjs';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    repo: { type: 'string' },
    narrow: { type: 'boolean', default: false },
    'events-table': { type: 'boolean', default: false },
  },
});
if (options['events-table'] && !options.narrow) throw new Error('--events-table goes with --narrow');
const [which, eventsText = '40000'] = positionals;
if (which !== 'gateway' && which !== 'floor') throw new Error('give gateway or floor');
const EVENTS = Number(eventsText);
const WARM_UP = 8_000;
const COMPANIES = 32;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-lifecycle-'));
// A message event's body of the bench's size (about 1 kB, as scenario 2's `message.create`).
const body = JSON.stringify({
  event: 'create',
  type: 'message',
  created_at: new Date().toISOString(),
  object: { message: 'x'.repeat(950) },
});
const eventId = (n) => `evt_${n.toString(16).padStart(24, '0')}`;

/** Writes the deliveries of `count` new events and records the attempts of the batch before it. */
const batch = which === 'gateway' ? await gatewayBatches(path.resolve(options.repo ?? ROOT)) : floorBatches();
try {
  for (let n = 0; n < WARM_UP; n += COMPANIES) batch(n);
  const before = process.cpuUsage();
  for (let n = WARM_UP; n < WARM_UP + EVENTS; n += COMPANIES) batch(n);
  const used = process.cpuUsage(before);
  const label =
    which === 'gateway'
      ? `gateway (${path.basename(path.resolve(options.repo ?? ROOT))}${options.narrow ? ', narrow rows' : ''}${options['events-table'] ? ', events table' : ''})`
      : 'complete floor';
  console.log(
    `${label}: ${((used.user + used.system) / EVENTS).toFixed(1)} µs of CPU per event: its delivery written, then its attempt recorded`,
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

async function gatewayBatches(repo) {
  const { Store } = await import(path.join(repo, 'dist/src/store/store.js'));
  const store = Store.open(path.join(dir, 'gateway.db'));
  store.accounts.createWithToken('bench', 'digest');
  const endpoints = [];
  for (let c = 0; c < COMPANIES; c += 1) {
    const company = store.companies.insert({
      accountId: 1,
      name: `company ${c}`,
      phone: null,
      description: null,
      webhookUrl: null,
    }).id;
    endpoints.push({ company, id: insertBenchEndpoint(store, company) });
  }
  const inTransaction = store.db.transaction((fn) => fn());
  let insertEvent = null;
  if (options['events-table']) {
    store.db.exec(
      'CREATE TABLE bench_events (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, company_id INTEGER NOT NULL, name TEXT NOT NULL, created_at TEXT NOT NULL, body TEXT NOT NULL)',
    );
    insertEvent = store.db.prepare(
      'INSERT INTO bench_events (id, company_id, name, created_at, body) VALUES (?, ?, ?, ?, ?)',
    );
  }
  let previous = [];
  return (from) => {
    const now = Date.now();
    const createdAt = new Date(now).toISOString();
    const made = [];
    inTransaction(() => {
      endpoints.forEach((endpoint, k) => {
        const id = eventId(from + k);
        insertEvent?.run(id, endpoint.company, 'message.create', createdAt, body);
        const json = options.narrow
          ? `{"id":"${id}"}`
          : `{"id":"${id}","company_id":${endpoint.company},"name":"message.create","created_at":"${createdAt}","body":${body}}`;
        const [deliveryId] = store.deliveries.createForEvent(
          { id, name: 'message.create', company_id: endpoint.company },
          [endpoint],
          now,
          json,
          null,
        );
        made.push({ deliveryId, endpoint });
      });
    });
    const attempts = previous.map(({ deliveryId, endpoint }) => ({
      id: `att_${deliveryId.slice(4)}`,
      delivery_id: deliveryId,
      company_id: endpoint.company,
      endpoint_id: endpoint.id,
      number: 1,
      step: 1,
      trigger: 'auto',
      started_at: now,
      duration_ms: 3,
      status_code: 200,
      response_body: 'ok',
      error: null,
      outcome: 'delivered',
      next_attempt_at: null,
    }));
    inTransaction(() => store.deliveries.applyAttempts(attempts, now, () => null));
    previous = made;
  };
}

function floorBatches() {
  const sql = openFloorStore(path.join(dir, 'floor.db'));
  let previous = [];
  return (from) => {
    const now = Date.now();
    const made = [];
    sql.begin.run();
    for (let k = 0; k < COMPANIES; k += 1) {
      const id = eventId(from + k);
      sql.insertEvent.run(String(k + 1), id, `{"id":"${id}",${body.slice(1)}`, now);
      made.push({ id, company: k + 1 });
    }
    sql.commit.run();
    sql.begin.run();
    for (const e of previous) sql.recordDelivered(e.id, e.company, e.company - 1, 200, now, 3, 'ok', now);
    sql.commit.run();
    previous = made;
  };
}
