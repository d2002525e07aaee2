#!/usr/bin/env node
// The store's side of a callback, without HTTP, load generator or receiver: bot callbacks applied
// in group-commit units (`group` per transaction), the embedded relay publishing their events in
// the same commits (fan-out to one endpoint per company, stream append), the WAL checkpointer
// thread as in the daemon. One process, so its CPU per callback moves far less with the machine
// than the daemon's under autocannon: the figure to compare a store change before and after, in
// alternating runs of two checkouts (BENCHMARKS.md). Needs a build (npm run build).
//
//   node scripts/bench/probes/store-path.mjs [callbacks=20000] [group=4] [--no-endpoints]
//   node scripts/bench/probes/store-path.mjs --repo=<other checkout> ...   that checkout's dist/
//   node scripts/bench/probes/store-path.mjs --pages ...   no checkpoints during the run; then the WAL frames
//                                                     per callback by table and index (which B-trees a callback writes)
//
// Prints CPU per callback (the whole process: the event loop, GC, the checkpointer thread) and the
// bytes the event loop wrote per callback (the WAL frames its COMMITs wrote, from /proc, Linux).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { insertBenchEndpoint, ROOT } from '../suite/lib.mjs';
import { statCpu } from '../suite/proc-stats.mjs';
import { walFramesByBtree } from './wal.mjs';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    repo: { type: 'string' },
    'no-endpoints': { type: 'boolean', default: false },
    pages: { type: 'boolean', default: false },
  },
});
const [callbacksText = '20000', groupText = '4'] = positionals;
const callbacks = Number(callbacksText);
const group = Number(groupText);
const repo = path.resolve(options.repo ?? ROOT);
const load = (module) => import(path.join(repo, 'dist/src', module));
const { Store } = await load('store/store.js');
const { WalCheckpointer } = await load('store/engine/checkpointer.js');
const { OutboxRelay } = await load('outbox/relay.js');
const { SqliteStreamBus } = await load('streams/sqlite/sqlite-stream.js');
const { normalizeBotUpdate } = await load('ingest/bot.js');
const { applyCallbackGrouped } = await load('domain/incoming.js');
const { createPresenters } = await load('presenters/presenters.js');
const { publicUrls } = await load('presenters/public-urls.js');
const presenters = createPresenters(publicUrls(''));

const COMPANIES = 32;
const SENDERS = 5_000;
/** Callbacks until every pair of sender and channel came once: their least common multiple. */
const WARM_UP = (SENDERS * COMPANIES) / gcd(SENDERS, COMPANIES);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-store-path-'));
const file = path.join(dir, 'gateway.db');
const logger = pino({ level: 'warn' });
const store = Store.open(file);
// --pages: the WAL keeps every frame of the measured run (no checkpoint moves them to the database).
if (options.pages) store.db.pragma('wal_autocheckpoint = 0');
const checkpointer = options.pages ? null : new WalCheckpointer(store.db, file, 100, logger);
store.accounts.createWithToken('bench', 'digest');
const channels = [];
for (let c = 0; c < COMPANIES; c += 1) {
  const company = store.companies.insert({
    accountId: 1,
    name: `company ${c}`,
    phone: null,
    description: null,
    webhookUrl: null,
  }).id;
  const channel = store.channels.insert({
    companyId: company,
    provider: 'chat_b',
    state: 'enabled',
    settings: {},
    credentials: {},
  });
  store.callbacks.create({ channelId: channel.id, api: 'v2', signingSecret: 'secret', verifyToken: 'token' });
  if (!options['no-endpoints']) insertBenchEndpoint(store, company);
  channels.push(channel.id);
}
// No consumer: the stream messages stay (the daemon's dispatcher would take and delete them).
const bus = new SqliteStreamBus(store.streamMessages, logger);
const relay = new OutboxRelay({ store, bus, clock: { now: () => Date.now() }, logger });
const abort = new AbortController();
const relaying = relay.run(abort.signal);

const update = (n) => {
  const sender = { id: 1_000 + (n % SENDERS), is_bot: false, first_name: 'Sender' };
  return {
    update_id: n,
    message: {
      message_id: n,
      date: 1_700_000_000,
      chat: { ...sender, type: 'private' },
      from: sender,
      text: `message ${n}`,
    },
  };
};
/** Callbacks from..from+count, `group` at a time: each batch shares one transaction. */
async function apply(from, count) {
  for (let n = from; n < from + count; n += group) {
    const batch = [];
    for (let k = n; k < Math.min(n + group, from + count); k += 1) {
      batch.push(
        store.grouped(() =>
          applyCallbackGrouped(
            store,
            { id: channels[k % COMPANIES], api: 'v2' },
            normalizeBotUpdate(update(k)),
            presenters,
          ),
        ),
      );
    }
    await Promise.all(batch);
  }
}
/** CPU ms per thread of this process, by thread id. */
const threads = () =>
  new Map(fs.readdirSync('/proc/self/task').map((task) => [task, statCpu(`/proc/self/task/${task}/stat`)]));
const written = () => Number(/wchar: (\d+)/.exec(fs.readFileSync(`/proc/self/task/${process.pid}/io`, 'utf8'))[1]);

try {
  // Warm-up: the JIT, and every sender known on every channel it writes to (the measured callbacks
  // are replies in conversations): the pairs of sender and channel repeat every WARM_UP callbacks.
  await apply(0, WARM_UP);
  if (options.pages) store.db.pragma('wal_checkpoint(TRUNCATE)');
  const [cpu0, written0, wall0, threads0] = [process.cpuUsage(), written(), performance.now(), threads()];
  await apply(WARM_UP, callbacks);
  const cpu = process.cpuUsage(cpu0);
  const [bytes, wall] = [written() - written0, performance.now() - wall0];
  const byThread = [...threads()]
    .map(([task, { name, ms }]) => [
      task === String(process.pid) ? 'event loop' : name,
      ms - (threads0.get(task)?.ms ?? 0),
    ])
    .filter(([, ms]) => ms > 0)
    .map(([name, ms]) => `${name} ${((ms * 1000) / callbacks).toFixed(0)} µs`);
  if (store.outbox.lag().pending !== 0) throw new Error(`${store.outbox.lag().pending} outbox rows left pending`);
  const perCallback = (value) => (value / callbacks).toFixed(0);
  console.log(
    `${path.basename(repo)}: ${callbacks} callbacks, ${group} per transaction${options['no-endpoints'] ? ', no endpoints' : ''}: ` +
      `CPU ${perCallback(cpu.user + cpu.system)} µs per callback (wall ${perCallback(wall * 1000)} µs), ` +
      `event loop wrote ${perCallback(bytes)} bytes per callback (${(bytes / callbacks / 4_120).toFixed(1)} WAL frames of 4 KiB)`,
  );
  console.log(`CPU per callback by thread: ${byThread.join(', ')}`);
  if (options.pages) framesByBtree();
} finally {
  abort.abort();
  await relaying;
  await checkpointer?.close();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

function gcd(a, b) {
  return b === 0 ? a : gcd(b, a % b);
}

/** The WAL's frames by the table or index their page belongs to now (dbstat), per callback. */
function framesByBtree() {
  const { total, byBtree } = walFramesByBtree(`${file}-wal`, store.db);
  console.log(
    `WAL frames per callback: ${(total / callbacks).toFixed(2)}, by table or index (frames per callback, distinct pages):`,
  );
  for (const [name, { frames: count, pages }] of byBtree) {
    console.log(`  ${name} ${(count / callbacks).toFixed(3)} (${pages} pages)`);
  }
}
