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
import autocannon from 'autocannon';
import { Webhook } from 'standardwebhooks';
import { measureFloors } from './floors.mjs';
import { manyCompanies, noisyNeighbour } from './tenants.mjs';
import {
  BARE_TARGETS,
  ROOT,
  epochNow,
  call,
  fixedRate,
  freePort,
  maxRate,
  measureBare,
  percentile,
  percents,
  prefillFailedDeliveries,
  prefillStore,
  rssThirds,
  sampleMachine,
  sampleRss,
  setupCompanies,
  sleep,
  startBareKoa,
  startDaemon,
  startReceiver,
  waitArrivals,
  waitIdle,
} from './lib.mjs';

const { values: args } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, 'cpu-prof': { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } },
});
const quick = args.quick;
const only = args.only ? new Set(args.only.split(',').map((s) => s.trim())) : null;
const cpuProf = args['cpu-prof'] ? path.join(ROOT, 'bench-profiles') : null;
if (cpuProf) fs.mkdirSync(cpuProf, { recursive: true });

/** Durations (s) and sizes: the full suite, or the short CI version (< 2 minutes in all). */
const P = quick
  ? { warm: 1, warmFixed: 1, warmKafka: 0, ingest: 3, e2e: 3, e2eKafka: 2, fixed: 3, fixedBaseline: 2, steadyFrom: 1, fixedKafka: 2, prefill: { conversations: 1_000, messages: 100_000 }, replay: 2_000, drainMs: 30_000, floor: 2, noisy: 5, manyCompanies: 200, many: 5 }
  : { warm: 3, warmFixed: 3, warmKafka: Number(process.env.BENCH_WARM_KAFKA ?? 17), ingest: 15, e2e: 15, e2eKafka: 15, fixed: 190, fixedBaseline: 20, steadyFrom: 10, fixedKafka: 190, prefill: { conversations: 50_000, messages: 5_000_000 }, replay: 1_000_000, drainMs: 300_000, floor: 15, noisy: 60, manyCompanies: 10_000, many: 60 };
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
const mb = (bytes) => bytes / 1024 / 1024;

function row(scenario, metric, value, { baseline = null, ratio = null, target = null, ok = null, unit = '' } = {}) {
  rows.push({ scenario, metric, value, baseline, ratio, target, ok, unit });
}

async function scenario(id, title, fn) {
  if (only && !only.has(id)) return;
  if (quick && !only && SLOW.has(id)) return;
  log(`scenario ${id}: ${title}`);
  const t = performance.now();
  let timer;
  // A scenario that hangs fails with a message instead of stalling the whole run.
  const limitMs = quick ? 100_000 : 1_200_000;
  const watchdog = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`did not finish within ${limitMs / 1000}s`)), limitMs)));
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
const daemon = async (name, options = {}) => startDaemon({ name, dataDir: dataDir(options.dir ?? name), port: await freePort(), cpuProf, ...options });

/** Bare Koa at maximum rate (after a warm-up): the throughput every ratio compares with. */
async function bareBaseline() {
  if (shared.bare) return shared.bare;
  shared.bare = await measureBare({ warmSeconds: P.warm, seconds: P.ingest });
  // What a request costs each side: how fast the machine was at the time (the same code measures
  // 110 to 160 µs here from one hour to the next), and what the ratios leave the daemon.
  shared.bare.cpu = `${shared.bare.bareUs.toFixed(0)} / ${shared.bare.loadUs.toFixed(0)}`;
  log(`bare Koa: ${shared.bare.rps.toFixed(0)} req/s; CPU per request (µs): bare Koa / load generator ${shared.bare.cpu}`);
  return shared.bare;
}

/** Counts the messages a stopped daemon committed (durability check after the 2xx answers). */
function storedMessages(dir) {
  const out = spawnSync(process.execPath, ['-e', `const D=require('better-sqlite3');const d=new D(process.argv[1],{readonly:true});console.log(d.prepare("SELECT count(*) n FROM messages WHERE text LIKE 'b:%'").get().n)`, path.join(dir, 'gateway.db')], { cwd: ROOT, encoding: 'utf8' });
  return Number(out.stdout.trim());
}

function checkLoad(result, what) {
  if (result.errors > 0 || result.non2xx > 0 || result.failed > 0) throw new Error(`${what}: ${result.errors ?? 0} errors, ${result.non2xx ?? result.failed ?? 0} non-2xx answers`);
}

/** Max-rate ingest against a daemon's channel: warm-up, then the measured run. */
async function ingestRun(d, companies) {
  const warm = await maxRate({ base: d.base, companies, seconds: P.warm });
  const machine = sampleMachine();
  const result = await maxRate({ base: d.base, companies, seconds: P.ingest });
  result.machine = machine.stop().whole;
  checkLoad(warm, 'warm-up');
  checkLoad(result, 'ingest');
  return { warm, result };
}

await scenario('0', 'floors: bare Koa, the minimal and the complete floors, ingest and end to end', async () => {
  const bare = await bareBaseline();
  shared.floors = await measureFloors({ bare, receiver, row, dir: dataDir('s0-floors'), companies: COMPANIES, P, checkLoad });
});

/**
 * Rows of a gateway figure against the floors of the run: its ratio to each, and the targets of
 * issue 26 where it has one (`targets`: {minimal, complete} lower bounds of the ratio).
 */
function floorRows(label, value, floorOf, targets) {
  for (const kind of ['minimal', 'complete']) {
    const floor = floorOf(shared.floors, kind);
    if (floor === undefined) continue;
    const ratio = value / floor;
    const target = targets[kind];
    row(label, `  ratio to the ${kind} floor`, value, { baseline: floor, ratio, ...(target === undefined ? {} : { target: `≥ ${target.toFixed(2)}`, ok: ratio >= target }) });
  }
}

await scenario('1', 'ingest: signed bot-style callbacks at maximum rate, deliveries paused', async () => {
  const bare = await bareBaseline();
  const d = await daemon('s1-ingest');
  let accepted = 0;
  try {
    const companies = await setupCompanies(d.base, null, COMPANIES);
    const { warm, result } = await ingestRun(d, companies);
    accepted = warm.accepted.length + result.accepted.length;
    shared.ingest = result;
    row('1 ingest', 'callbacks/s (baseline: bare Koa)', result.rps, { baseline: bare.rps, ratio: result.rps / bare.rps });
    floorRows('1 ingest', result.rps, (f, kind) => f?.[kind]?.rps, { minimal: 0.55, complete: 0.85 });
    row('1 ingest', 'latency p50 / p99 (ms)', `${result.p50} / ${result.p99}`, { baseline: `${bare.p50} / ${bare.p99}` });
    row('1 ingest', 'baseline CPU per request: bare Koa / load generator (µs)', bare.cpu);
    row('1 ingest', 'machine CPU busy / idle / stolen (%)', percents(result.machine), { baseline: percents(bare.machine) });
  } finally {
    await d.stop();
  }
  const stored = storedMessages(dataDir('s1-ingest'));
  // Requests cut off by the end of the run may be stored without their answer being counted.
  if (stored < accepted) throw new Error(`${accepted} callbacks answered 2xx but only ${stored} messages are in the store`);
  row('1 ingest', 'stored after stop ≥ answered 2xx', `${stored} ≥ ${accepted}`, { ok: true });
});

/** End to end at maximum rate against a daemon (or a core + worker): delivered/s and latencies. */
async function endToEnd(label, d, companies, { loadSeconds = P.e2e, preWarmSeconds = 0, targets = {} } = {}) {
  const bare = await bareBaseline();
  await receiver.useCompanies(companies);
  if (preWarmSeconds > 0) {
    // Senders of their own: the phases after it meet as many new senders (two events per callback
    // instead of one) as scenario 2's do.
    const preWarm = await maxRate({ base: d.base, companies, seconds: preWarmSeconds, firstSender: 900_000 });
    checkLoad(preWarm, 'warm-up');
    if ((await waitArrivals(receiver, preWarm.accepted, P.drainMs)).missing > 0) throw new Error('warm-up events never arrived');
  }
  const warm = await maxRate({ base: d.base, companies, seconds: P.warm });
  checkLoad(warm, 'warm-up');
  const warmStatus = await waitArrivals(receiver, warm.accepted, P.drainMs);
  if (warmStatus.missing > 0) throw new Error(`${warmStatus.missing} warm-up events never arrived`);
  await receiver.reset();
  const t0 = epochNow();
  const machine = sampleMachine();
  const result = await maxRate({ base: d.base, companies, seconds: loadSeconds });
  checkLoad(result, 'end to end');
  const state = await waitArrivals(receiver, result.accepted, P.drainMs);
  const cpu = machine.stop().whole;
  if (state.bad > 0) throw new Error(`${state.bad} webhooks failed signature verification`);
  if (state.missing > 0) throw new Error(`${state.missing} of ${result.accepted.length} events never arrived within ${P.drainMs / 1000}s`);
  const seconds = (state.lastArrival - t0) / 1000;
  const delivered = result.accepted.length / seconds;
  const latencies = await receiver.latencies(result.accepted);
  // The issue's figure is events delivered per second (every callback makes two here: a new or
  // updated conversation and the message), against the baseline's callbacks per second.
  const events = state.ids / seconds;
  row(label, 'events delivered/s (all verified; baseline: bare Koa)', events, { baseline: bare.rps, ratio: events / bare.rps });
  floorRows(label, events, (f, kind) => f?.[`${kind}Deliver`]?.eventsPerSecond, targets);
  row(label, 'callbacks delivered/s (message.create arrived)', delivered);
  row(label, 'callback→webhook p50 / p99 / p999 (ms)', `${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} / ${percentile(latencies, 99.9).toFixed(1)}`);
  row(label, 'ingest callbacks/s during the run', result.rps);
  row(label, 'machine CPU busy / idle / stolen (%), until the last arrival', percents(cpu));
  return { events, delivered };
}

await scenario('2', 'end to end: the same load, deliveries on, receiver verifying signatures', async () => {
  const d = await daemon('s2-e2e');
  try {
    const companies = await setupCompanies(d.base, receiver.url, COMPANIES);
    shared.e2e = await endToEnd('2 end to end', d, companies, { targets: { minimal: 0.7, complete: 0.8 } });
  } finally {
    await d.stop();
  }
});

/** Fixed rate: latencies callback → webhook, and the RSS of the given processes. */
async function fixedRun(label, d, companies, pids, seconds, p99Target, p50Target, rate) {
  await receiver.useCompanies(companies);
  const warm = await maxRate({ base: d.base, companies, seconds: P.warm, connections: 8 });
  checkLoad(warm, 'warm-up');
  if ((await waitArrivals(receiver, warm.accepted, P.drainMs)).missing > 0) throw new Error('warm-up events never arrived');
  // Then the load of the steady phase itself, shorter, so that neither side starts it cold: its
  // first seconds otherwise fall behind by hundreds of ms (scripts/bench/cpu.mjs fixed shows it).
  const warmFixed = await fixedRate({ base: d.base, companies, rate, seconds: P.warmFixed });
  if ((await waitArrivals(receiver, warmFixed.accepted, P.drainMs)).missing > 0) throw new Error('warm-up events never arrived');
  // The steady phase starts on an idle pipeline, not on the warm-up's attempt records and commits.
  const idle = await waitIdle(d.base, P.drainMs);
  log(`${label}: pipeline idle ${(idle.waitedMs / 1000).toFixed(1)} s after the warm-up's webhooks arrived${idle.left === null ? '' : `; still busy, going on: ${idle.left.join(', ')}`}`);
  await receiver.reset();
  const rss = sampleRss(pids);
  const machine = sampleMachine();
  const result = await fixedRate({ base: d.base, companies, rate, seconds });
  const samples = rss.stop();
  const cpu = machine.stop();
  checkLoad(result, 'fixed rate');
  const state = await waitArrivals(receiver, result.accepted, P.drainMs);
  if (state.bad > 0) throw new Error(`${state.bad} webhooks failed signature verification`);
  if (state.missing > 0) throw new Error(`${state.missing} of ${result.accepted.length} events never arrived`);
  const latencies = await receiver.latencies(result.accepted);
  const [p50, p99, p999] = [50, 99, 99.9].map((p) => percentile(latencies, p));
  log(`${label}: callback→webhook p99 per second of sending (ms): ${perSecondP99(result.accepted, await receiver.latenciesOf(result.accepted), rate).join(' ')}`);
  // A second whose p99 jumps while the steal jumps was the hypervisor's, not the daemon's.
  log(`${label}: machine CPU stolen per second (%): ${cpu.intervals.map((i) => i.steal.toFixed(0)).join(' ')}`);
  row(label, 'rate asked (callbacks/s): half the maximum end-to-end rate of this run', rate);
  row(label, 'rate achieved (callbacks/s)', result.rate);
  row(label, 'machine CPU busy / idle / stolen (%)', percents(cpu.whole));
  row(label, 'callback→webhook p50 (ms)', p50, p50Target === null ? {} : { target: `≤ ${p50Target}`, ok: p50 <= p50Target });
  row(label, 'callback→webhook p99 (ms)', p99, { target: `≤ ${p99Target}`, ok: p99 <= p99Target });
  row(label, 'callback→webhook p999 (ms)', p999);
  row(label, 'callback answer p50 / p99 (ms)', `${result.p50.toFixed(1)} / ${result.p99.toFixed(1)}`);
  for (const [pid, list] of Object.entries(samples)) {
    const name = pids.length > 1 ? ` ${pid === String(pids[0]) ? 'core' : 'worker'}` : '';
    // Thirds of the steady phase: a minute each in the full run.
    const { peak, first, last } = rssThirds(list, list.filter((s) => s.t >= P.steadyFrom * 1000));
    // The whole series, a mean per 5 s: where V8's collection cycle was at the windows compared.
    const avg = (xs) => xs.reduce((a, s) => a + s.rss, 0) / xs.length;
    const fives = [];
    for (const sample of list) (fives[Math.floor(sample.t / 5_000)] ??= []).push(sample);
    log(`${label}: RSS${name} per 5 s (MB): ${fives.map((xs) => (xs ? mb(avg(xs)).toFixed(0) : '-')).join(' ')}`);
    row(label, `peak RSS${name} (MB)`, peak, { target: '≤ 200', ok: peak <= 200 });
    row(label, `RSS${name} steady phase, first → last third (MB)`, `${first.toFixed(0)} → ${last.toFixed(0)}`, { ratio: last / first, target: 'growth < 5 %', ok: last / first < 1.05 });
  }
  return { p50, p99 };
}

/** p99 of each second of a fixed-rate run, from message numbers taken in send order at `rate` a second. */
function perSecondP99(accepted, latencies, rate) {
  // A loop, not Math.min(...accepted): a run of 3 minutes has more numbers than the stack takes arguments.
  const first = accepted.reduce((a, b) => (b < a ? b : a), Infinity);
  const seconds = [];
  accepted.forEach((n, i) => (seconds[Math.floor((n - first) / rate)] ??= []).push(latencies[i] ?? Infinity));
  return [...seconds].map((list = []) => percentile(list.sort((a, b) => a - b), 99).toFixed(0));
}

/**
 * The fixed rate of a run: half its own maximum end-to-end rate (callbacks whose message.create
 * arrived per second), rounded to 50; RATE when that scenario did not run; BENCH_FIXED_RATE when set.
 */
function fixedRateOf(e2e) {
  if (process.env.BENCH_FIXED_RATE) return Number(process.env.BENCH_FIXED_RATE);
  return e2e === undefined ? RATE : Math.max(50, Math.round(e2e.delivered / 2 / 50) * 50);
}

await scenario('3', `fixed rate: half the end-to-end rate of scenario 2 (${RATE} callbacks/s without it) for ${P.fixed} s, embedded`, async () => {
  const rate = fixedRateOf(shared.e2e);
  const bare = await startBareKoa();
  try {
    await maxRate({ base: bare.base, companies: BARE_TARGETS, seconds: P.warm, connections: 8 });
    const base = await fixedRate({ base: bare.base, companies: BARE_TARGETS, rate, seconds: P.fixedBaseline });
    row('3 fixed rate', `bare Koa answer p50 / p99 at ${rate}/s (ms)`, `${base.p50.toFixed(1)} / ${base.p99.toFixed(1)}`);
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
});

await scenario('4', `big store: scenario 1 on ${P.prefill.messages.toLocaleString('en')} messages in ${P.prefill.conversations.toLocaleString('en')} conversations`, async () => {
  let d = await daemon('s4-big');
  const companies = await setupCompanies(d.base, null, COMPANIES);
  await d.stop();
  const t = performance.now();
  const counts = prefillStore(path.join(dataDir('s4-big'), 'gateway.db'), { companyId: companies[0].companyId, channelId: companies[0].channelId, ...P.prefill });
  log(`prefilled ${counts.messages} messages / ${counts.conversations} conversations in ${((performance.now() - t) / 1000).toFixed(1)}s`);
  d = await daemon('s4-big');
  try {
    const { result } = await ingestRun(d, companies);
    const empty = shared.ingest?.rps;
    row('4 big store', 'callbacks/s', result.rps, empty ? { baseline: empty, ratio: result.rps / empty, target: '≥ 0.90 of empty', ok: result.rps / empty >= 0.9 } : {});
    row('4 big store', 'latency p50 / p99 (ms)', `${result.p50} / ${result.p99}`);
  } finally {
    await d.stop();
  }
});

await scenario('5', `replay: ${P.replay.toLocaleString('en')} failed deliveries replayed in bulk`, async () => {
  let d = await daemon('s5-replay');
  const companies = await setupCompanies(d.base, receiver.url, COMPANIES);
  const company = companies[0];
  await d.stop();
  // The failed deliveries of an outage, spread over every company's endpoint: deliveries of one
  // endpoint go out one at a time, so a replay to a single endpoint is bounded by its round trip.
  for (const [index, c] of companies.entries()) {
    const count = Math.floor(P.replay / companies.length) + (index < P.replay % companies.length ? 1 : 0);
    prefillFailedDeliveries(path.join(dataDir('s5-replay'), 'gateway.db'), { companyId: c.companyId, endpointId: c.endpointId, count, from: index * 1_000_000 });
  }
  await receiver.useCompanies(companies);
  // Baseline: what the receiver itself takes (signed POSTs, verified) at maximum rate.
  const body = JSON.stringify({ id: 'evt_base', event: 'create', type: 'message', created_at: new Date().toISOString(), object: { id: 1, message: 'x:baseline' } });
  const headers = { 'content-type': 'application/json', 'webhook-id': 'evt_base', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) };
  headers['webhook-signature'] = new Webhook(company.webhookSecret).sign('evt_base', new Date(Number(headers['webhook-timestamp']) * 1000), body);
  const base = await autocannon({ url: `${receiver.url}?c=0`, method: 'POST', headers, body, connections: 8, duration: P.ingest });
  const baseRps = base.requests.total / base.duration;
  await receiver.reset();
  d = await daemon('s5-replay');
  try {
    const t0 = epochNow();
    const rss = sampleRss([d.pid], 1_000);
    const { task } = await call(d.base, 'POST', '/admin/replays', { admin: true, body: { status: 'failed' } });
    // At least 1,000 deliveries/s, however many: a replay slower than that has failed anyway.
    const deadline = performance.now() + Math.max(P.drainMs, P.replay);
    let state = await receiver.status();
    const progress = [{ at: t0, replayed: 0 }];
    while (state.replayed < P.replay && performance.now() < deadline) {
      await sleep(250);
      state = await receiver.status();
      progress.push({ at: epochNow(), replayed: state.replayed });
    }
    const samples = rss.stop()[d.pid];
    const seconds = (state.lastArrival - t0) / 1000;
    if (state.bad > 0) throw new Error(`${state.bad} webhooks failed signature verification`);
    if (state.replayed < P.replay) throw new Error(`only ${state.replayed} of ${P.replay} replays arrived (task ${task.id})`);
    const rate = P.replay / seconds;
    row('5 replay', `deliveries/s (${P.replay.toLocaleString('en')} replayed)`, rate, { baseline: baseRps, ratio: rate / baseRps, target: '≥ 2,000/s', ok: rate >= 2000 });
    // Steady to the end: the deliveries of the last third of the sending time against the first
    // third's (from the first poll that saw one arrive: the task's start is not a rate).
    const begun = progress.find((p) => p.replayed > 0)?.at ?? t0;
    const third = (state.lastArrival - begun) / 3;
    const replayedAt = (at) => progress.findLast((p) => p.at <= at)?.replayed ?? 0;
    const [first, last] = [(replayedAt(begun + third) - replayedAt(begun)) / third, (P.replay - replayedAt(begun + 2 * third)) / third];
    // A third shorter than a few polls (the quick form's 2,000) says nothing.
    if (third >= 3_000) row('5 replay', 'deliveries/s, first → last third of the replay', `${(first * 1000).toFixed(0)} → ${(last * 1000).toFixed(0)}`, { ratio: last / first, target: '≥ 0.9', ok: last / first >= 0.9 });
    const rssOfReplay = rssThirds(samples);
    row('5 replay', 'peak RSS (MB)', rssOfReplay.peak, { target: '≤ 200', ok: rssOfReplay.peak <= 200 });
    row('5 replay', 'RSS, first → last third (MB)', `${rssOfReplay.first.toFixed(0)} → ${rssOfReplay.last.toFixed(0)}`, { ratio: rssOfReplay.last / rssOfReplay.first, target: 'growth < 5 %', ok: rssOfReplay.last / rssOfReplay.first < 1.05 });
  } finally {
    await d.stop();
  }
});

await scenario('6', 'Kafka mode: core + one worker process, end to end and fixed rate', async () => {
  const lease = String(process.pid);
  const kafka = (command) => spawnSync('bash', ['scripts/kafka/kafka.sh', command], { cwd: ROOT, env: { ...process.env, KAFKA_LEASE: lease }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const startedKafka = kafka('start');
  if (startedKafka.status !== 0) throw new Error('the Kafka test broker could not be started (scripts/kafka/kafka.sh start)');
  const env = { GATEWAY_KAFKA_BROKERS: `127.0.0.1:${process.env.KAFKA_PORT ?? '19092'}`, GATEWAY_KAFKA_NAMESPACE: `bench-${process.pid}-${Date.now()}.` };
  let core;
  let worker;
  try {
    core = await daemon('s6-core', { role: 'core', env, dir: 's6-kafka' });
    worker = await daemon('s6-worker', { role: 'worker', env, dir: 's6-kafka' });
    const companies = await setupCompanies(core.base, receiver.url, COMPANIES);
    // A longer warm-up first: the broker is a fresh JVM here, whose JIT compilers take about half its
    // CPU in its first minute under load (cpu.mjs kafka prints its threads); a broker in service is warm.
    const kafkaE2e = await endToEnd('6 Kafka end to end', core, companies, { loadSeconds: P.e2eKafka, preWarmSeconds: P.warmKafka });
    if (shared.e2e !== undefined) {
      const ratio = kafkaE2e.events / shared.e2e.events;
      row('6 Kafka end to end', '  ratio to embedded end to end (scenario 2)', kafkaE2e.events, { baseline: shared.e2e.events, ratio, target: '≥ 0.75', ok: ratio >= 0.75 });
    }
    await fixedRun('6 Kafka fixed rate', core, companies, [core.pid, worker.pid], P.fixedKafka, 150, null, fixedRateOf(kafkaE2e));
  } finally {
    await worker?.stop();
    await core?.stop();
    kafka('release');
  }
});

await scenario('7', 'noisy neighbour: 32 companies at a fixed rate, all healthy, then one endpoint hanging and one answering 500', async () => {
  await noisyNeighbour({ daemon, receiver, row, log, rate: fixedRateOf(shared.e2e), seconds: P.noisy, drainMs: P.drainMs, companies: COMPANIES });
});

await scenario('8', `${P.manyCompanies.toLocaleString('en')} companies, each with its own endpoint, at a fixed rate`, async () => {
  await manyCompanies({ daemon, receiver, row, log, rate: fixedRateOf(shared.e2e), seconds: P.many, drainMs: P.drainMs, companies: P.manyCompanies });
});

await receiver.close();
if (!args.keep) fs.rmSync(tmpRoot, { recursive: true, force: true });
else log(`data dirs kept in ${tmpRoot}`);

printTable();
const total = ((performance.now() - started) / 1000).toFixed(1);
if (failures.length > 0) {
  process.stdout.write(`\n${failures.length} scenario(s) did not complete:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
  process.stdout.write(`bench: FAILED after ${total}s\n`);
  process.exit(1);
}
const missed = rows.filter((r) => r.ok === false);
process.stdout.write(`\nbench: every scenario completed and every event arrived (${total}s); targets ${missed.length === 0 ? 'all met' : `missed: ${missed.map((r) => `${r.scenario} ${r.metric}`).join('; ')}`}\n`);

function printTable() {
  const fmt = (v) => (v === null || v === undefined ? '' : typeof v === 'number' ? (Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en') : v.toFixed(2)) : String(v));
  const lines = rows.map((r) => [r.scenario, r.metric, fmt(r.value), fmt(r.baseline), r.ratio === null ? '' : r.ratio.toFixed(2), r.target ?? '', r.ok === null ? '' : r.ok ? 'met' : 'MISSED']);
  const header = ['scenario', 'metric', 'gateway', 'baseline', 'ratio', 'target', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const out = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  process.stdout.write(`\n${out(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${lines.map(out).join('\n')}\n`);
  process.stdout.write(`\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
}
