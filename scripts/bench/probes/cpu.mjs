#!/usr/bin/env node
// CPU cost per unit of work, read from /proc: what the daemon's threads spent per callback (end to
// end, deliveries on) or per delivery (bulk replay). Steadier than throughput on a shared machine,
// so it is the figure to compare before and after a change (BENCHMARKS.md). Linux only; needs a build.
//
//   node scripts/bench/probes/cpu.mjs e2e [seconds=8]       max-rate signed callbacks, 32 companies, deliveries on
//   node scripts/bench/probes/cpu.mjs ingest [seconds=8]    the same callbacks without webhook endpoints (bench scenario 1):
//                                                     the ingest path alone, until the outbox relay has caught up
//   node scripts/bench/probes/cpu.mjs ingest-fixed [seconds=20]  those callbacks at 1,000/s: the same arrivals whatever the
//                                                     code's speed, so group commits of the same sizes (at max rate
//                                                     a slower run commits fewer callbacks at a time)
//   node scripts/bench/probes/cpu.mjs replay [count=20000]   failed deliveries over 32 endpoints, replayed in bulk
//   node scripts/bench/probes/cpu.mjs fixed [seconds=30]     1,000 callbacks/s: CPU per callback, and callback → webhook
//                                                     p50/p99/max per second of the run (where a tail comes from)
//   node scripts/bench/probes/cpu.mjs bare [seconds=8]       the bare-Koa baseline at max rate: its CPU per request and
//                                                     the load generator's (the budget the ratios leave the daemon)
//   node scripts/bench/probes/cpu.mjs floor [seconds=8]     bare Koa, then each floor handler: floor-koa.mjs insert (one insert)
//                                                     and design (the deduplicated message, its conversation and one
//                                                     event row), floor-complete.mjs ingest (the whole job, flat),
//                                                     each after a bare-Koa run of its own, twice
//   node scripts/bench/probes/cpu.mjs floor-thread [seconds=8] floor-complete.mjs ingest, then ingest-threaded (its store on a
//                                                     thread of its own), in turn, three rounds
//   node scripts/bench/probes/cpu.mjs floor-e2e [seconds=8] bare Koa, then floor-koa.mjs deliver (the design floor with its events
//                                                     POSTed signed to the verifying receiver) and floor-complete.mjs
//                                                     deliver (the whole job with its attempts recorded, its webhooks
//                                                     sent from a thread of its own), twice
//   node scripts/bench/probes/cpu.mjs floor-e2e-inline [seconds=8] the same, with floor-complete.mjs deliver-inline (its
//                                                     webhooks sent from its event loop) after each complete one
//   node scripts/bench/probes/cpu.mjs kafka [seconds=8]      e2e in Kafka mode (core + one worker, the local broker of
//                                                     scripts/kafka/kafka.sh): CPU per callback of each process
//
// BENCH_WARM_FIXED=<seconds> (fixed): the fixed-rate warm-up before the measured phase (default 3).
// BENCH_RATE=<callbacks/s> (fixed): the fixed rate (default 1000); a lower one that a busy machine
// still keeps gives two builds the same group-commit sizes.
// BENCH_BROKEN=1 (fixed): from the warm-up on, company 0's endpoint never answers and company 1's
// answers 500, as in bench scenario 7; the figures are the other companies' events. Alternated
// with runs without it, it shows what the broken endpoints cost the daemon, thread by thread.
// BENCH_CPU_PROF=<dir> also writes the daemon's .cpuprofile files (one per thread) under <dir>, and
// in `floor` and `floor-e2e` modes each floor handler's.
// BENCH_ROOT=<checkout> (ingest, ingest-fixed, e2e, kafka): run that checkout's build of the daemon
// instead of this one's, so that one probe measures two builds (a worktree of an older commit, built
// there).
// BENCH_TRACING=protobuf|json (e2e, fixed): the daemon traces at 100 % sampling to a local OTLP/HTTP
// receiver (scripts/bench/suite/otlp-sink.mjs) in that encoding. CPU is read at the last arrival, as
// without tracing (at most the batch processor's queue, 2,048 spans, is exported after that); the
// run then waits until no more spans come and prints how many came per callback.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { floorSecrets, floorTargets, measureDeliverFloor } from '../floors/floors.mjs';
import {
  bySendSecond,
  call,
  freePort,
  percentile,
  setupCompanies,
  sleep,
  startDaemon,
  testBroker,
} from '../suite/lib.mjs';
import {
  byTid,
  cpuMsOf,
  mainThread,
  perThread,
  percents,
  sampleMachine,
  threadName,
  threads,
  us,
} from '../suite/proc-stats.mjs';
import { fixedRate, maxRate, waitArrivals, waitIdle } from '../suite/load.mjs';
import { measureBare } from '../suite/baseline.mjs';
import { startOtlpSink, startReceiver } from '../suite/sinks.mjs';
import { prefillFailedDeliveries } from '../suite/prefill.mjs';
import { BROKEN_ENDPOINTS, isHealthy } from '../suite/tenants.mjs';

const [mode = 'e2e', amount] = process.argv.slice(2);
const FIXED_RATE = Number(process.env.BENCH_RATE ?? 1_000);
const COMPANIES = 32;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-cpu-'));
const cpuProf = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : null;
const BUILD_ROOT = process.env.BENCH_ROOT ? path.resolve(process.env.BENCH_ROOT) : undefined;

const receiver = await startReceiver();
const tracing = process.env.BENCH_TRACING ? await startOtlpSink(`http/${process.env.BENCH_TRACING}`) : null;
try {
  if (mode === 'e2e') {
    const d = await startDaemon({
      name: 'cpu-e2e',
      dataDir: dir,
      port: await freePort(),
      cpuProf,
      env: tracing?.env ?? {},
      root: BUILD_ROOT,
    });
    try {
      const companies = await setupCompanies(d.base, receiver.url, COMPANIES);
      await receiver.useCompanies(companies);
      // Events of the setup (sent before the receiver knew the secrets) are not part of the figure.
      await sleep(1_000);
      await receiver.reset();
      const spans0 = (await tracing?.status())?.spans ?? 0;
      const [m0, t0, r0, b0, g0, s0] = [
        mainThread(d.pid),
        cpuMsOf(d.pid),
        cpuMsOf(receiver.pid),
        byTid(d.pid),
        cpuMsOf(process.pid),
        tracing ? cpuMsOf(tracing.pid) : 0,
      ];
      const { result, status, n, elapsed, eventsPerSecond } = await deliveredRun(
        d.base,
        companies,
        Number(amount ?? 8),
      );
      // Read right after the last arrival, like a run without tracing; at most the batch
      // processor's queue (2,048 spans) is still to be exported then.
      const cpu = {
        loop: us(mainThread(d.pid) - m0, n),
        all: us(cpuMsOf(d.pid) - t0, n),
        receiver: us(cpuMsOf(receiver.pid) - r0, n),
        load: us(cpuMsOf(process.pid) - g0, n),
        sink: tracing ? us(cpuMsOf(tracing.pid) - s0, n) : '',
        threads: perThread(d.pid, b0, n),
      };
      console.log(
        `e2e: ${n} callbacks (${result.rps.toFixed(0)}/s answered), ${status.hooks} events delivered in ${elapsed.toFixed(1)} s = ${eventsPerSecond.toFixed(0)} events/s`,
      );
      console.log(
        `daemon CPU per callback (with its events): event loop ${cpu.loop}, all threads ${cpu.all}; receiver ${cpu.receiver}; load generator ${cpu.load}`,
      );
      console.log(
        `daemon threads (CPU ms since start): ${threads(d.pid)
          .filter((t) => t.ms > 0)
          .map((t) => `${t.name} ${t.ms}`)
          .join(', ')}`,
      );
      console.log(`daemon CPU per callback by thread id: ${cpu.threads}`);
      if (tracing) await reportSpans(spans0, n, cpu.sink);
    } finally {
      await d.stop();
    }
  } else if (mode === 'kafka') {
    const broker = testBroker();
    if (broker.run('start').status !== 0)
      throw new Error('the Kafka test broker could not be started (scripts/kafka/kafka.sh start)');
    const brokerPid = broker.pid();
    const env = { GATEWAY_KAFKA_BROKERS: broker.brokers, GATEWAY_KAFKA_NAMESPACE: `cpu-${process.pid}-${Date.now()}.` };
    let core;
    let worker;
    try {
      core = await startDaemon({
        name: 'cpu-kafka-core',
        dataDir: dir,
        port: await freePort(),
        role: 'core',
        env,
        cpuProf,
        root: BUILD_ROOT,
      });
      worker = await startDaemon({
        name: 'cpu-kafka-worker',
        dataDir: dir,
        role: 'worker',
        env,
        cpuProf,
        root: BUILD_ROOT,
      });
      const companies = await setupCompanies(core.base, receiver.url, COMPANIES);
      await receiver.useCompanies(companies);
      await sleep(2_000);
      await receiver.reset();
      const pids = {
        core: core.pid,
        worker: worker.pid,
        broker: brokerPid,
        receiver: receiver.pid,
        'load generator': process.pid,
      };
      const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
      const [c0, cb0, wb0, bb0] = [mainThread(core.pid), byTid(core.pid), byTid(worker.pid), byTid(brokerPid)];
      const { result, status, n, elapsed, eventsPerSecond } = await deliveredRun(
        core.base,
        companies,
        Number(amount ?? 8),
      );
      console.log(
        `kafka: ${n} callbacks (${result.rps.toFixed(0)}/s answered), ${status.hooks} events delivered in ${elapsed.toFixed(1)} s = ${eventsPerSecond.toFixed(0)} events/s`,
      );
      console.log(
        `CPU per callback (with its events): ${Object.entries(pids)
          .map(([name, pid]) => `${name} ${us(cpuMsOf(pid) - before[name], n)}`)
          .join(', ')}; core event loop ${us(mainThread(core.pid) - c0, n)}`,
      );
      console.log(`by thread id: core ${perThread(core.pid, cb0, n)}; worker ${perThread(worker.pid, wb0, n)}`);
      // The broker's JVM threads by kind (name without its number): request handlers, GC, JIT compilers...
      const kinds = new Map();
      for (const [tid, ms] of byTid(brokerPid)) {
        const kind = threadName(brokerPid, tid).replace(/[-#\s]*\d+$/, '');
        kinds.set(kind, (kinds.get(kind) ?? 0) + ms - (bb0.get(tid) ?? 0));
      }
      console.log(
        `broker threads by kind: ${[...kinds]
          .filter(([, ms]) => ms > 0)
          .sort((a, b) => b[1] - a[1])
          .map(([kind, ms]) => `${kind} ${us(ms, n)}`)
          .join(', ')}`,
      );
    } finally {
      await worker?.stop();
      await core?.stop();
      broker.run('release');
    }
  } else if (mode === 'bare') {
    // The baseline's side of the ratios: what a bare Koa request and the load generator's request
    // cost, so what is left of two cores for the daemon at a given fraction of the baseline.
    const bare = await measureBare({ warmSeconds: 3, seconds: Number(amount ?? 8) });
    console.log(
      `bare Koa: ${bare.total} requests (${bare.rps.toFixed(0)}/s, answer p50 ${bare.p50.toFixed(1)} ms, p99 ${bare.p99.toFixed(1)} ms)`,
    );
    console.log(
      `CPU per request: bare Koa ${bare.bareUs.toFixed(0)} µs, load generator ${bare.loadUs.toFixed(0)} µs; machine CPU busy / idle / stolen ${percents(bare.machine)} %`,
    );
  } else if (mode === 'floor') {
    // Each floor next to the bare-Koa run just before it: the machine's speed moves within minutes.
    const seconds = Number(amount ?? 8);
    // The floor's rows spread over 32 channels (its channel is the path), as the gateway's do over 32 companies.
    const targets = floorTargets(COMPANIES);
    for (let round = 1; round <= 2; round += 1) {
      for (const level of ['insert', 'design', 'complete']) {
        const bare = await measureBare({ warmSeconds: 3, seconds, targets });
        console.log(floorLine('bare Koa', bare));
        const handler =
          level === 'complete'
            ? ['floors/floor-complete.mjs', dir, String(COMPANIES), 'ingest']
            : ['floors/floor-koa.mjs', dir, level];
        const floor = await measureBare({
          warmSeconds: 3,
          seconds,
          targets,
          handler,
          cpuProf: cpuProf && path.join(cpuProf, `floor-${level}-${round}`),
        });
        console.log(floorLine(`floor ${level}`, floor, bare));
        if (cpuProf) console.log(`  its .cpuprofile covers ${floor.handled} callbacks (warm-up included)`);
      }
    }
  } else if (mode === 'floor-thread') {
    // The complete floor as it is (one thread) and with its store on a thread of its own, in turn.
    const seconds = Number(amount ?? 8);
    const targets = floorTargets(COMPANIES);
    for (let round = 1; round <= 3; round += 1) {
      for (const level of ['ingest', 'ingest-threaded']) {
        const floor = await measureBare({
          warmSeconds: 3,
          seconds,
          targets,
          handler: ['floors/floor-complete.mjs', dir, String(COMPANIES), level],
        });
        console.log(floorLine(`complete ${level}`, floor));
      }
    }
  } else if (mode === 'ingest' || mode === 'ingest-fixed') {
    const d = await startDaemon({
      name: 'cpu-ingest',
      dataDir: dir,
      port: await freePort(),
      cpuProf,
      root: BUILD_ROOT,
    });
    try {
      const companies = await setupCompanies(d.base, null, COMPANIES);
      await sleep(1_000);
      const [m0, t0, b0] = [mainThread(d.pid), cpuMsOf(d.pid), byTid(d.pid)];
      const result =
        mode === 'ingest'
          ? await maxRate({ base: d.base, companies, seconds: Number(amount ?? 8) })
          : await fixedRate({ base: d.base, companies, rate: 1_000, seconds: Number(amount ?? 20) });
      // The relay publishes every event to its stream (no endpoint to fan out to): part of the path.
      const deadline = performance.now() + 60_000;
      while ((await call(d.base, 'GET', '/healthz', { expect: [200, 503] })).outbox?.pending !== 0) {
        if (performance.now() > deadline) throw new Error('the outbox relay did not catch up within 60 s');
        await sleep(50);
      }
      const n = result.accepted.length;
      const rate = mode === 'ingest' ? result.rps : result.rate;
      console.log(
        `${mode}: ${n} callbacks (${rate.toFixed(0)}/s answered, answer p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms)`,
      );
      console.log(
        `daemon CPU per callback: event loop ${us(mainThread(d.pid) - m0, n)}, all threads ${us(cpuMsOf(d.pid) - t0, n)}`,
      );
      console.log(`daemon CPU per callback by thread id: ${perThread(d.pid, b0, n)}`);
    } finally {
      await d.stop();
    }
  } else if (mode === 'fixed') {
    const d = await startDaemon({
      name: 'cpu-fixed',
      dataDir: dir,
      port: await freePort(),
      cpuProf,
      env: tracing?.env ?? {},
    });
    try {
      const companies = await setupCompanies(d.base, receiver.url, COMPANIES);
      await receiver.useCompanies(companies);
      // BENCH_BROKEN=1: company 0's endpoint never answers and company 1's answers 500 (scenario 7's
      // broken endpoints) from the warm-up on; only the other companies' events are waited for and
      // timed, and the pipeline never idles (the hanging endpoint's backlog stays).
      const broken = process.env.BENCH_BROKEN === '1';
      if (broken) await receiver.misbehave(BROKEN_ENDPOINTS);
      const healthy = (accepted) => (broken ? accepted.filter((m) => isHealthy(m, COMPANIES)) : accepted);
      const warm = await maxRate({ base: d.base, companies, seconds: 3, connections: 8 });
      await waitArrivals(receiver, healthy(warm.accepted), 60_000);
      // The fixed-rate load itself, shorter: without it the first seconds fall behind by hundreds of ms.
      const warmFixed = await fixedRate({
        base: d.base,
        companies,
        rate: FIXED_RATE,
        seconds: Number(process.env.BENCH_WARM_FIXED ?? 3),
      });
      await waitArrivals(receiver, healthy(warmFixed.accepted), 60_000);
      if (!broken) await waitIdle(d.base, 60_000);
      if (process.env.BENCH_SETTLE_MS) await sleep(Number(process.env.BENCH_SETTLE_MS));
      await receiver.reset();
      const spans0 = (await tracing?.status())?.spans ?? 0;
      const [m0, t0, r0, b0, g0, s0] = [
        mainThread(d.pid),
        cpuMsOf(d.pid),
        cpuMsOf(receiver.pid),
        byTid(d.pid),
        cpuMsOf(process.pid),
        tracing ? cpuMsOf(tracing.pid) : 0,
      ];
      const machine = sampleMachine();
      const result = await fixedRate({ base: d.base, companies, rate: FIXED_RATE, seconds: Number(amount ?? 30) });
      const cpu = machine.stop();
      const timed = healthy(result.accepted);
      const state = await waitArrivals(receiver, timed, 120_000);
      if (state.missing > 0 || state.bad > 0)
        throw new Error(`${state.missing} events missing, ${state.bad} bad signatures`);
      const n = result.accepted.length;
      const accepted = [...timed].sort((a, b) => a - b);
      const latencies = await receiver.latenciesOf(accepted);
      const seconds = bySendSecond(accepted, latencies, FIXED_RATE);
      const all = [...latencies].sort((a, b) => a - b);
      console.log(
        `fixed: ${n} callbacks at ${result.rate.toFixed(0)}/s; callback → webhook p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms, p999 ${percentile(all, 99.9).toFixed(1)} ms; answer p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms`,
      );
      console.log(
        `daemon CPU per callback (with its events): event loop ${us(mainThread(d.pid) - m0, n)}, all threads ${us(cpuMsOf(d.pid) - t0, n)}; receiver ${us(cpuMsOf(receiver.pid) - r0, n)}; load generator ${us(cpuMsOf(process.pid) - g0, n)}`,
      );
      console.log(`daemon CPU per callback by thread id: ${perThread(d.pid, b0, n)}`);
      console.log(`machine CPU busy / idle / stolen: ${percents(cpu.whole)} %`);
      if (tracing) await reportSpans(spans0, n, us(cpuMsOf(tracing.pid) - s0, n));
      console.log('per second of sending: p50 / p99 / max (ms), the machine CPU stolen in that second (%)');
      console.log(
        seconds
          .map((sorted, s) => {
            const steal = cpu.intervals[s] === undefined ? '' : `, ${cpu.intervals[s].steal.toFixed(0)} %`;
            return `${s}: ${percentile(sorted, 50).toFixed(0)} / ${percentile(sorted, 99).toFixed(0)} / ${sorted.at(-1).toFixed(0)}${steal}`;
          })
          .join('  '),
      );
    } finally {
      await d.stop();
    }
  } else if (mode === 'replay') {
    const count = Math.floor(Number(amount ?? 20_000) / COMPANIES) * COMPANIES;
    let d = await startDaemon({ name: 'cpu-replay', dataDir: dir, port: await freePort() });
    const companies = await setupCompanies(d.base, receiver.url, COMPANIES);
    await d.stop();
    for (const [index, c] of companies.entries()) {
      prefillFailedDeliveries(path.join(dir, 'gateway.db'), {
        companyId: c.companyId,
        endpointId: c.endpointId,
        count: count / COMPANIES,
        from: index * 1_000_000,
      });
    }
    await receiver.useCompanies(companies);
    d = await startDaemon({ name: 'cpu-replay', dataDir: dir, port: await freePort(), cpuProf });
    try {
      const [m0, t0, r0, b0] = [mainThread(d.pid), cpuMsOf(d.pid), cpuMsOf(receiver.pid), byTid(d.pid)];
      const start = performance.now();
      await call(d.base, 'POST', '/admin/replays', { admin: true, body: { status: 'failed' } });
      let status = await receiver.status();
      while (status.replayed < count) {
        if (performance.now() - start > 600_000) throw new Error(`only ${status.replayed} of ${count} replays arrived`);
        await sleep(200);
        status = await receiver.status();
      }
      const seconds = (performance.now() - start) / 1000;
      console.log(`replay: ${count} deliveries in ${seconds.toFixed(1)} s = ${(count / seconds).toFixed(0)}/s`);
      console.log(
        `daemon CPU per delivery: event loop ${us(mainThread(d.pid) - m0, count)}, all threads ${us(cpuMsOf(d.pid) - t0, count)}; receiver ${us(cpuMsOf(receiver.pid) - r0, count)}`,
      );
      console.log(`daemon CPU per delivery by thread id: ${perThread(d.pid, b0, count)}`);
    } finally {
      await d.stop();
    }
  } else if (mode === 'floor-e2e' || mode === 'floor-e2e-inline') {
    // The floor of end to end: bare Koa, then floor-koa.mjs deliver (the design floor, and its events
    // POSTed signed to the receiver once committed) under the same load, alternating twice.
    const seconds = Number(amount ?? 8);
    const { file: secretsFile } = await floorSecrets(receiver, dir, COMPANIES);
    const targets = floorTargets(COMPANIES);
    for (let round = 1; round <= 2; round += 1) {
      const bare = await measureBare({ warmSeconds: 3, seconds, targets });
      console.log(floorLine('bare Koa', bare));
      const contestants = [
        ['minimal', 'floors/floor-koa.mjs', ['deliver']],
        ['complete', 'floors/floor-complete.mjs', [String(COMPANIES), 'deliver']],
      ];
      if (mode === 'floor-e2e-inline')
        contestants.push(['complete inline', 'floors/floor-complete.mjs', [String(COMPANIES), 'deliver-inline']]);
      for (const [name, script, args] of contestants) {
        // A fresh store each time, warmed up by other senders: the measured load opens its
        // conversations (an event each) as the daemon's e2e run does.
        const handler = [script, fs.mkdtempSync(path.join(dir, 'floor-e2e-')), ...args, receiver.url, secretsFile];
        const r = await measureDeliverFloor({
          receiver,
          handler,
          targets,
          warmSeconds: 3,
          seconds,
          cpuProf: cpuProf && path.join(cpuProf, `floor-e2e-${name.replace(' ', '-')}-${round}`),
        });
        console.log(
          `${`floor ${name}`.padEnd(23)} ${r.eventsPerSecond.toFixed(0).padStart(6)} events/s = ${(r.eventsPerSecond / bare.rps).toFixed(2)} of bare Koa (${r.n} callbacks, ${r.rps.toFixed(0)}/s answered, ${r.events} events); ` +
            `CPU per callback: handler ${r.handlerUs.toFixed(0)} µs, receiver ${r.receiverUs.toFixed(0)} µs, load generator ${r.loadUs.toFixed(0)} µs`,
        );
        console.log(`  handler CPU per callback by thread id: ${r.threads}`);
      }
    }
  } else {
    throw new Error(
      `unknown mode ${mode}: e2e, ingest, ingest-fixed, fixed, replay, kafka, bare, floor, floor-thread, floor-e2e or floor-e2e-inline`,
    );
  }
} finally {
  await receiver.close();
  await tracing?.close();
  // BENCH_KEEP=1 keeps the data dir with the daemon's log.
  if (process.env.BENCH_KEEP) console.log(`kept ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Max-rate callbacks to `base` for `seconds`, then waits until the event of every accepted one
 * arrived at the receiver, verified: events/s from the first send to the last arrival.
 */
async function deliveredRun(base, companies, seconds) {
  const start = performance.timeOrigin + performance.now();
  const result = await maxRate({ base, companies, seconds });
  const state = await waitArrivals(receiver, result.accepted, 120_000);
  if (state.missing > 0 || state.bad > 0)
    throw new Error(`${state.missing} events missing, ${state.bad} bad signatures`);
  const status = await receiver.status();
  const elapsed = (status.lastArrival - start) / 1000;
  return { result, status, n: result.accepted.length, elapsed, eventsPerSecond: status.hooks / elapsed };
}

/**
 * The spans of a traced run (BENCH_TRACING): the batch processor exports every 5 s, so they are
 * counted once two reads 6 s apart agree.
 */
async function reportSpans(before, n, sinkCpu) {
  let last = -1;
  let spans = (await tracing.status()).spans;
  while (spans !== last) {
    last = spans;
    await sleep(6_000);
    spans = (await tracing.status()).spans;
  }
  console.log(
    `tracing (${process.env.BENCH_TRACING}, 100 % sampled): ${spans - before} spans received = ${((spans - before) / n).toFixed(1)} per callback; OTLP receiver ${sinkCpu} per callback`,
  );
}

/** One line of `floor` and `floor-e2e`: a measureBare result, and its ratio to `bare` when given. */
function floorLine(name, r, bare) {
  return `${name.padEnd(14)} ${r.rps.toFixed(0).padStart(6)}/s${bare ? ` = ${(r.rps / bare.rps).toFixed(2)} of bare Koa` : ''}; CPU per request: handler ${r.bareUs.toFixed(0)} µs, load generator ${r.loadUs.toFixed(0)} µs; machine busy / idle / stolen ${percents(r.machine)} %`;
}
