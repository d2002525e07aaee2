#!/usr/bin/env node
// The benchmark suite (BENCHMARKS.md): `npm run bench` (full) or `npm run bench -- --quick` (CI).
// Starts the built daemon (`node bin/gateway.js serve`) on fresh temp data dirs, a webhook receiver
// that verifies every signature (standardwebhooks) and the load generators on loopback, runs the
// scenarios of issues 7 and 26, each with a baseline of the same run (bare Koa, the floors of
// scenario 0, the all-healthy runs of scenario 7), and prints a table with every target met or missed.
//
// Options: --quick (short version of everything, exits non-zero unless every scenario completed and
// every event arrived), --only=1,3 (scenarios to run), --cpu-prof (write .cpuprofile files of the
// daemons to ./bench-profiles), --keep (keep the temp data dirs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { alternateEndToEnd, alternateIngest } from './alternate.mjs';
import { floorRows, startDeliverFloors, startIngestFloors } from '../floors/floors.mjs';
import { replayScenario } from './replay.mjs';
import { benchRuns } from './runs.mjs';
import { clusterScenario } from './cluster.mjs';
import { manyCompanies, noisyNeighbour } from './tenants.mjs';
import { freePort, ROOT, setupCompanies, startDaemon, testBroker } from './lib.mjs';
import { percents, sampleMachine } from './proc-stats.mjs';
import { fixedRate, maxRate } from './load.mjs';
import { BARE_TARGETS, measureBare, startBareKoa } from './baseline.mjs';
import { startReceiver } from './sinks.mjs';
import { prefillStore } from './prefill.mjs';

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
const RATE = 1_000;
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

/** Counts the messages a stopped daemon committed (durability check after the 2xx answers). */
function storedMessages(dir) {
  const out = spawnSync(
    process.execPath,
    [
      '-e',
      `const D=require('better-sqlite3');const d=new D(process.argv[1],{readonly:true});console.log(d.prepare("SELECT count(*) n FROM messages WHERE text LIKE 'b:%'").get().n)`,
      path.join(dir, 'gateway.db'),
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return Number(out.stdout.trim());
}

const { checkLoad, fixedRun, floorFigures, e2eContestant, e2eRows } = benchRuns({
  receiver,
  row,
  log,
  P,
  bare: () => shared.bare,
});
/** Rounds of the alternating measurements (alternate.mjs) and each one's seconds of load per contestant. */
const ROUNDS = { rounds: P.rounds, seconds: P.roundSeconds };

await scenario(
  '0',
  'bare Koa: a handler reading and JSON-parsing the callbacks, the baseline of the ratios to bare Koa',
  async () => {
    const bare = await bareBaseline();
    row('0 bare Koa', 'requests/s', bare.rps);
    row('0 bare Koa', 'CPU per request: bare Koa / load generator (µs)', bare.cpu);
  },
);

await scenario(
  '1',
  'ingest: signed bot-style callbacks at maximum rate, deliveries paused, in turn with the ingest floors',
  async () => {
    const bare = await bareBaseline();
    const d = await daemon('s1-ingest');
    let floors;
    let accepted;
    try {
      floors = await startIngestFloors(dataDir('s1-floors'), COMPANIES);
      const companies = await setupCompanies(d.base, null, COMPANIES);
      const gateway = { name: 'gateway', base: d.base, companies, pids: [d.pid] };
      const machine = sampleMachine();
      const [result, ...floorResults] = await alternateIngest([gateway, ...floors.contestants], {
        ...ROUNDS,
        warmSeconds: P.warm,
        checkLoad,
      });
      accepted = result.accepted.length;
      row('1 ingest', 'callbacks/s (baseline: bare Koa)', result.rps, {
        baseline: bare.rps,
        ratio: result.rps / bare.rps,
      });
      row(
        '1 ingest',
        'latency p50 / p99 (ms), mean of the rounds',
        `${result.p50.toFixed(1)} / ${result.p99.toFixed(1)}`,
        { baseline: `${bare.p50} / ${bare.p99}` },
      );
      row(
        '1 ingest',
        'CPU per callback, gateway / load generator (µs)',
        `${result.ownUs.toFixed(0)} / ${result.loadUs.toFixed(0)}`,
      );
      row('1 ingest', 'machine CPU busy / idle / stolen (%), all rounds', percents(machine.stop().whole), {
        baseline: percents(bare.machine),
      });
      const figures = floorResults.map((f) => ({ ...f, value: f.rps }));
      floorFigures('1 ingest', floors.contestants, figures, 'callbacks/s', (f) => [
        'floor / load generator',
        `${f.ownUs.toFixed(0)} / ${f.loadUs.toFixed(0)}`,
      ]);
      floorRows(
        row,
        '1 ingest',
        { value: result.rps, rounds: result.rounds },
        floors.contestants.map((c, i) => ({ kind: c.kind, ...figures[i] })),
        { minimal: 0.55, complete: 0.85 },
      );
    } finally {
      await floors?.stop();
      await d.stop();
    }
    const stored = storedMessages(dataDir('s1-ingest'));
    // Requests cut off by the end of a round may be stored without their answer being counted.
    if (stored < accepted)
      throw new Error(`${accepted} callbacks answered 2xx but only ${stored} messages are in the store`);
    row('1 ingest', 'stored after stop ≥ answered 2xx', `${stored} ≥ ${accepted}`, { ok: true });
  },
);

await scenario(
  '2',
  'end to end: the same load, deliveries on, receiver verifying signatures, in turn with the deliver floors',
  async () => {
    await bareBaseline();
    const d = await daemon('s2-e2e');
    let floors;
    try {
      floors = await startDeliverFloors({
        receiver,
        dir: dataDir('s2-floors'),
        companies: COMPANIES,
        warmSeconds: P.warm,
        drainMs: P.drainMs,
      });
      // The floors' endpoints are the receiver's first COMPANIES indexes, the gateway's the next ones.
      const companies = await setupCompanies(d.base, receiver.url, COMPANIES, 1, COMPANIES);
      const gateway = e2eContestant('gateway', d, [d.pid], companies);
      const machine = sampleMachine();
      const webhookCompanies = [...floors.webhookCompanies, ...companies];
      const [result, ...floorResults] = await alternateEndToEnd([gateway, ...floors.contestants], {
        receiver,
        webhookCompanies,
        ...ROUNDS,
        drainMs: P.drainMs,
        checkLoad,
      });
      shared.e2e = { events: result.eventsPerSecond, delivered: result.callbacksPerSecond };
      e2eRows('2 end to end', result);
      row('2 end to end', 'machine CPU busy / idle / stolen (%), all rounds', percents(machine.stop().whole));
      const figures = floorResults.map((f) => ({ ...f, value: f.eventsPerSecond }));
      floorFigures('2 end to end', floors.contestants, figures, 'events delivered/s (all verified)', (f) => [
        'floor / receiver / load generator',
        `${f.ownUs.toFixed(0)} / ${f.receiverUs.toFixed(0)} / ${f.loadUs.toFixed(0)}`,
      ]);
      floorRows(
        row,
        '2 end to end',
        { value: result.eventsPerSecond, rounds: result.rounds },
        floors.contestants.map((c, i) => ({ kind: c.kind, ...figures[i] })),
        { complete: 0.8 },
      );
    } finally {
      await floors?.stop();
      await d.stop();
    }
  },
);

/**
 * The fixed rate of a run: half its own maximum end-to-end rate (callbacks whose message.create
 * arrived per second), rounded to 50; RATE when that scenario did not run; BENCH_FIXED_RATE when set.
 */
function fixedRateOf(e2e) {
  if (process.env.BENCH_FIXED_RATE) return Number(process.env.BENCH_FIXED_RATE);
  return e2e === undefined ? RATE : Math.max(50, Math.round(e2e.delivered / 2 / 50) * 50);
}

await scenario(
  '3',
  `fixed rate: half the end-to-end rate of scenario 2 (${RATE} callbacks/s without it) for ${P.fixed} s, embedded`,
  async () => {
    const rate = fixedRateOf(shared.e2e);
    const bare = await startBareKoa();
    try {
      await maxRate({ base: bare.base, companies: BARE_TARGETS, seconds: P.warm, connections: 8 });
      const base = await fixedRate({ base: bare.base, companies: BARE_TARGETS, rate, seconds: P.fixedBaseline });
      row(
        '3 fixed rate',
        `bare Koa answer p50 / p99 at ${rate}/s (ms)`,
        `${base.p50.toFixed(1)} / ${base.p99.toFixed(1)}`,
      );
    } finally {
      await bare.stop();
    }
    const d = await daemon('s3-fixed');
    try {
      const companies = await setupCompanies(d.base, receiver.url, COMPANIES);
      await fixedRun('3 fixed rate', d, companies, [d.pid], P.fixed, 50, 10, rate);
    } finally {
      await d.stop();
    }
  },
);

await scenario(
  '4',
  `big store: scenario 1 on ${P.prefill.messages.toLocaleString('en')} messages in ${P.prefill.conversations.toLocaleString('en')} conversations`,
  async () => {
    let d = await daemon('s4-big');
    const companies = await setupCompanies(d.base, null, COMPANIES);
    await d.stop();
    const t = performance.now();
    const counts = prefillStore(path.join(dataDir('s4-big'), 'gateway.db'), {
      companyId: companies[0].companyId,
      channelId: companies[0].channelId,
      ...P.prefill,
    });
    log(
      `prefilled ${counts.messages} messages / ${counts.conversations} conversations in ${((performance.now() - t) / 1000).toFixed(1)}s`,
    );
    // The empty store in turn with the big one, both daemons up: the same minutes of the host for both.
    const e = await daemon('s4-empty');
    try {
      const emptyCompanies = await setupCompanies(e.base, null, COMPANIES);
      d = await daemon('s4-big');
      const [big, empty] = await alternateIngest(
        [
          { name: 'big store', base: d.base, companies, pids: [d.pid] },
          { name: 'empty store', base: e.base, companies: emptyCompanies, pids: [e.pid] },
        ],
        { ...ROUNDS, warmSeconds: P.warm, checkLoad },
      );
      const ratio = big.rps / empty.rps;
      row('4 big store', 'callbacks/s (baseline: an empty store, in turn)', big.rps, {
        baseline: empty.rps,
        ratio,
        target: '≥ 0.90 of empty',
        ok: ratio >= 0.9,
      });
      row(
        '4 big store',
        '  ratio round by round',
        big.rounds.map((rps, i) => (rps / empty.rounds[i]).toFixed(2)).join(' '),
      );
      row(
        '4 big store',
        'latency p50 / p99 (ms), mean of the rounds',
        `${big.p50.toFixed(1)} / ${big.p99.toFixed(1)}`,
        { baseline: `${empty.p50.toFixed(1)} / ${empty.p99.toFixed(1)}` },
      );
    } finally {
      await d.stop();
      await e.stop();
    }
  },
);

await scenario('5', `replay: ${P.replay.toLocaleString('en')} failed deliveries replayed in bulk`, async () => {
  await replayScenario({ daemon, dataDir, receiver, row, P, companies: COMPANIES });
});

await scenario('6', 'Kafka mode: core + one worker process, end to end and fixed rate', async () => {
  const broker = testBroker();
  if (broker.run('start').status !== 0)
    throw new Error('the Kafka test broker could not be started (scripts/kafka/kafka.sh start)');
  const env = { GATEWAY_KAFKA_BROKERS: broker.brokers, GATEWAY_KAFKA_NAMESPACE: `bench-${process.pid}-${Date.now()}.` };
  let core;
  let worker;
  let embedded;
  try {
    core = await daemon('s6-core', { role: 'core', env, dir: 's6-kafka' });
    worker = await daemon('s6-worker', { role: 'worker', env, dir: 's6-kafka' });
    embedded = await daemon('s6-embedded');
    const companies = await setupCompanies(core.base, receiver.url, COMPANIES);
    const embeddedCompanies = await setupCompanies(embedded.base, receiver.url, COMPANIES, 1, COMPANIES);
    // Kafka's warm-up is longer: the broker is a fresh JVM here, whose JIT compilers take about half
    // its CPU in its first minute under load (cpu.mjs kafka prints its threads); a broker in service is warm.
    const contestants = [
      e2eContestant('Kafka', core, [core.pid, worker.pid], companies, P.warmKafka),
      e2eContestant('embedded', embedded, [embedded.pid], embeddedCompanies),
    ];
    const webhookCompanies = [...companies, ...embeddedCompanies];
    const [kafkaE2e, embeddedE2e] = await alternateEndToEnd(contestants, {
      receiver,
      webhookCompanies,
      ...ROUNDS,
      drainMs: P.drainMs,
      checkLoad,
    });
    await receiver.useCompanies(companies);
    await embedded.stop();
    embedded = undefined;
    e2eRows('6 Kafka end to end', kafkaE2e);
    e2eRows('6 embedded end to end, in turn with it', embeddedE2e);
    const ratio = kafkaE2e.eventsPerSecond / embeddedE2e.eventsPerSecond;
    row('6 Kafka end to end', '  ratio to embedded end to end (in turn)', kafkaE2e.eventsPerSecond, {
      baseline: embeddedE2e.eventsPerSecond,
      ratio,
      target: '≥ 0.75',
      ok: ratio >= 0.75,
    });
    row(
      '6 Kafka end to end',
      '  ratio round by round',
      kafkaE2e.rounds.map((events, i) => (events / embeddedE2e.rounds[i]).toFixed(2)).join(' '),
    );
    await fixedRun(
      '6 Kafka fixed rate',
      core,
      companies,
      [core.pid, worker.pid],
      P.fixedKafka,
      150,
      null,
      fixedRateOf({ delivered: kafkaE2e.callbacksPerSecond }),
    );
  } finally {
    await embedded?.stop();
    await worker?.stop();
    await core?.stop();
    broker.run('release');
  }
});

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
    await clusterScenario({ daemon, receiver, row, log, P, companies: COMPANIES, checkLoad });
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
