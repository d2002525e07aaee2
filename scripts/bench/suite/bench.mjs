#!/usr/bin/env node
// The benchmark suite (BENCHMARKS.md): `npm run bench` (full) or `npm run bench -- --quick` (CI).
// Starts the built daemon (`node bin/gateway.js serve`) on fresh temp data dirs, a webhook receiver
// that verifies every signature (standardwebhooks) and the load generators on loopback, runs the
// scenarios of issues 7 and 26, each with a baseline of the same run (bare Koa, the floors of
// scenario 0, the all-healthy runs of scenario 7), and prints a table with every target met or missed.
//
// Options: --quick (short version of everything, exits non-zero unless every scenario completed and
// every event arrived), --only=1,3 (scenarios to run), --cpu-prof (write .cpuprofile files of the
// daemons to ./bench-profiles), --keep (keep the temp data dirs). The bodies of the scenarios are in
// the modules beside it (README.md); this file runs them in order and prints the table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { replayScenario } from './replay.mjs';
import { benchRuns, fixedRateOf, RATE } from './runs.mjs';
import { clusterScenario } from './cluster.mjs';
import { manyCompanies, noisyNeighbour } from './tenants.mjs';
import { freePort, ROOT, startDaemon } from './lib.mjs';
import { measureBare } from './baseline.mjs';
import { startReceiver } from './sinks.mjs';
import { bareKoaScenario, bigStoreScenario, ingestScenario } from './scenarios-ingest.mjs';
import { endToEndScenario, fixedRateScenario } from './scenarios-delivery.mjs';
import { kafkaScenario } from './scenarios-kafka.mjs';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'cpu-prof': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const quick = args.quick;
const only = args.only ? new Set(args.only.split(',').map((s) => s.trim())) : null;
const cpuProf = args['cpu-prof'] ? path.join(ROOT, 'bench-profiles') : null;
if (cpuProf) fs.mkdirSync(cpuProf, { recursive: true });

/** Durations (s) and sizes: the full suite, or the short CI version (< 2 minutes in all). */
const P = quick
  ? {
      warm: 1,
      warmFixed: 1,
      warmKafka: 0,
      ingest: 3,
      rounds: 2,
      roundSeconds: 2,
      fixed: 3,
      fixedBaseline: 2,
      steadyFrom: 1,
      fixedKafka: 2,
      prefill: { conversations: 1_000, messages: 100_000 },
      replay: 2_000,
      drainMs: 30_000,
      noisy: 3,
      noisyRounds: 2,
      manyCompanies: 200,
      many: 5,
      cluster: { rate: 300, rounds: 2, seconds: 3, idleSeconds: 2, outage: { before: 3, down: 2, after: 2 } },
    }
  : {
      warm: 3,
      warmFixed: 3,
      warmKafka: Number(process.env.BENCH_WARM_KAFKA ?? 17),
      ingest: 15,
      rounds: 3,
      roundSeconds: 5,
      fixed: 190,
      fixedBaseline: 20,
      steadyFrom: 10,
      fixedKafka: 190,
      prefill: { conversations: 50_000, messages: 5_000_000 },
      replay: 1_000_000,
      drainMs: 300_000,
      noisy: 20,
      noisyRounds: 4,
      manyCompanies: 10_000,
      many: 60,
      cluster: {
        rate: Number(process.env.BENCH_CLUSTER_RATE ?? 1_000),
        rounds: 3,
        seconds: 20,
        idleSeconds: 10,
        outage: { before: 10, down: 5, after: 10 },
      },
    };
/** Scenarios the quick form leaves out unless --only names them: minutes of setup or of timeouts. */
const SLOW = new Set(['7', '8']);
/** Companies the load is spread over, each with its channel and its webhook endpoint. */
const COMPANIES = Number(process.env.BENCH_COMPANIES ?? 32);

const started = performance.now();
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'));
const rows = [];
const failures = [];
const shared = {};
const receiver = await startReceiver();
const log = (text) => process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1)}s] ${text}\n`);

function row(scenario, metric, value, { baseline = null, ratio = null, target = null, ok = null, unit = '' } = {}) {
  rows.push({ scenario, metric, value, baseline, ratio, target, ok, unit });
}

/** Runs a scenario unless left out; `quickLimitMs` is its watchdog in the quick form (the full form's is 20 minutes). */
async function scenario(id, title, fn, { quickLimitMs = 100_000 } = {}) {
  if (only && !only.has(id)) return;
  if (quick && !only && SLOW.has(id)) return;
  log(`scenario ${id}: ${title}`);
  const t = performance.now();
  let timer;
  // A scenario that hangs fails with a message instead of stalling the whole run.
  const limitMs = quick ? quickLimitMs : 1_200_000;
  const watchdog = new Promise(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`did not finish within ${limitMs / 1000}s`)), limitMs)),
  );
  try {
    await Promise.race([fn(), watchdog]);
    log(`scenario ${id} done in ${((performance.now() - t) / 1000).toFixed(1)}s`);
  } catch (error) {
    failures.push(`scenario ${id} (${title}): ${error.message}`);
    log(`scenario ${id} FAILED: ${error.stack ?? error}`);
  } finally {
    clearTimeout(timer);
  }
}
process.on('unhandledRejection', (error) => log(`unhandled rejection: ${error?.stack ?? error}`));

const dataDir = (name) => path.join(tmpRoot, name);
const daemon = async (name, options = {}) =>
  startDaemon({ name, dataDir: dataDir(options.dir ?? name), port: await freePort(), cpuProf, ...options });

/** Bare Koa at maximum rate (after a warm-up): the throughput every ratio compares with. */
async function bareBaseline() {
  if (shared.bare) return shared.bare;
  shared.bare = await measureBare({ warmSeconds: P.warm, seconds: P.ingest });
  // What a request costs each side: how fast the machine was at the time (the same code measures
  // 110 to 160 µs here from one hour to the next), and what the ratios leave the daemon.
  shared.bare.cpu = `${shared.bare.bareUs.toFixed(0)} / ${shared.bare.loadUs.toFixed(0)}`;
  log(
    `bare Koa: ${shared.bare.rps.toFixed(0)} req/s; CPU per request (µs): bare Koa / load generator ${shared.bare.cpu}`,
  );
  return shared.bare;
}

/** The runs and rows the scenarios share (runs.mjs). */
const runs = benchRuns({ receiver, row, log, P, bare: () => shared.bare });
/** Rounds of the alternating measurements (alternate.mjs) and each one's seconds of load per contestant. */
const ROUNDS = { rounds: P.rounds, seconds: P.roundSeconds };

await scenario(
  '0',
  'bare Koa: a handler reading and JSON-parsing the callbacks, the baseline of the ratios to bare Koa',
  () => bareKoaScenario({ row, bareBaseline }),
);

await scenario(
  '1',
  'ingest: signed bot-style callbacks at maximum rate, deliveries paused, in turn with the ingest floors',
  () => ingestScenario({ daemon, dataDir, row, P, rounds: ROUNDS, runs, bareBaseline, companies: COMPANIES }),
);

await scenario(
  '2',
  'end to end: the same load, deliveries on, receiver verifying signatures, in turn with the deliver floors',
  () =>
    endToEndScenario({
      daemon,
      dataDir,
      receiver,
      row,
      P,
      rounds: ROUNDS,
      runs,
      bareBaseline,
      shared,
      companies: COMPANIES,
    }),
);

await scenario(
  '3',
  `fixed rate: half the end-to-end rate of scenario 2 (${RATE} callbacks/s without it) for ${P.fixed} s, embedded`,
  () => fixedRateScenario({ daemon, receiver, row, P, runs, rate: fixedRateOf(shared.e2e), companies: COMPANIES }),
);

await scenario(
  '4',
  `big store: scenario 1 on ${P.prefill.messages.toLocaleString('en')} messages in ${P.prefill.conversations.toLocaleString('en')} conversations`,
  () => bigStoreScenario({ daemon, dataDir, row, log, P, rounds: ROUNDS, runs, companies: COMPANIES }),
);

await scenario('5', `replay: ${P.replay.toLocaleString('en')} failed deliveries replayed in bulk`, async () => {
  await replayScenario({ daemon, dataDir, receiver, row, P, companies: COMPANIES });
});

await scenario('6', 'Kafka mode: core + one worker process, end to end and fixed rate', () =>
  kafkaScenario({ daemon, receiver, row, P, rounds: ROUNDS, runs, companies: COMPANIES }),
);

await scenario(
  '7',
  'noisy neighbour: 32 companies at a fixed rate, all healthy, then one endpoint hanging and one answering 500',
  async () => {
    await noisyNeighbour({
      daemon,
      receiver,
      row,
      log,
      rate: fixedRateOf(shared.e2e),
      seconds: P.noisy,
      rounds: P.noisyRounds,
      drainMs: P.drainMs,
      companies: COMPANIES,
    });
  },
);

await scenario(
  '8',
  `${P.manyCompanies.toLocaleString('en')} companies, each with its own endpoint, at a fixed rate`,
  async () => {
    await manyCompanies({
      daemon,
      receiver,
      row,
      log,
      rate: fixedRateOf(shared.e2e),
      seconds: P.many,
      drainMs: P.drainMs,
      companies: P.manyCompanies,
    });
  },
);

await scenario(
  '9',
  `a 2-shard cluster (two cores, a front, one worker) in turn with a single core in Kafka mode, at ${P.cluster.rate} callbacks/s; then one shard's core killed`,
  async () => {
    await clusterScenario({ daemon, receiver, row, log, P, companies: COMPANIES, checkLoad: runs.checkLoad });
  },
  // Six processes to start, and a core to start again after its kill.
  { quickLimitMs: 180_000 },
);

await receiver.close();
if (!args.keep) fs.rmSync(tmpRoot, { recursive: true, force: true });
else log(`data dirs kept in ${tmpRoot}`);

printTable();
const total = ((performance.now() - started) / 1000).toFixed(1);
if (failures.length > 0) {
  process.stdout.write(
    `\n${failures.length} scenario(s) did not complete:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`,
  );
  process.stdout.write(`bench: FAILED after ${total}s\n`);
  process.exit(1);
}
const missed = rows.filter((r) => r.ok === false);
process.stdout.write(
  `\nbench: every scenario completed and every event arrived (${total}s); targets ${missed.length === 0 ? 'all met' : `missed: ${missed.map((r) => `${r.scenario} ${r.metric}`).join('; ')}`}\n`,
);

function printTable() {
  const fmt = (v) =>
    v === null || v === undefined
      ? ''
      : typeof v === 'number'
        ? Math.abs(v) >= 100
          ? Math.round(v).toLocaleString('en')
          : v.toFixed(2)
        : String(v);
  const lines = rows.map((r) => [
    r.scenario,
    r.metric,
    fmt(r.value),
    fmt(r.baseline),
    r.ratio === null ? '' : r.ratio.toFixed(2),
    r.target ?? '',
    r.ok === null ? '' : r.ok ? 'met' : 'MISSED',
  ]);
  const header = ['scenario', 'metric', 'gateway', 'baseline', 'ratio', 'target', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const out = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  process.stdout.write(
    `\n${out(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${lines.map(out).join('\n')}\n`,
  );
  process.stdout.write(
    `\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
}
