// cpu.mjs e2e, fixed and replay: a daemon delivering webhooks to the verifying receiver. CPU per
// callback with its events at maximum rate (e2e) and at a fixed rate with callback → webhook
// latencies per second (fixed); CPU per delivery of failed deliveries replayed in bulk (replay).
import path from 'node:path';
import { bySendSecond, call, freePort, percentile, setupCompanies, sleep, startDaemon } from '../../suite/lib.mjs';
import {
  byTid,
  cpuMsOf,
  mainThread,
  perThread,
  percents,
  sampleMachine,
  threads,
  us,
} from '../../suite/proc-stats.mjs';
import { fixedRate, maxRate, waitArrivals, waitIdle } from '../../suite/load.mjs';
import { prefillFailedDeliveries } from '../../suite/prefill.mjs';
import { BROKEN_ENDPOINTS, isHealthy } from '../../suite/tenants.mjs';
import { COMPANIES, deliveredRun, reportSpans } from './shared.mjs';

/** BENCH_RATE: the callbacks/s of `fixed`. */
const FIXED_RATE = Number(process.env.BENCH_RATE ?? 1_000);

/** `e2e [seconds=8]`: max-rate signed callbacks, deliveries on. */
export async function e2e({ amount, dir, cpuProf, root, receiver, tracing }) {
  const d = await startDaemon({
    name: 'cpu-e2e',
    dataDir: dir,
    port: await freePort(),
    cpuProf,
    env: tracing?.env ?? {},
    root,
  });
  try {
    const companies = await setupCompanies(d.base, receiver.url, COMPANIES);
    await receiver.useCompanies(companies);
    // Events of the setup (sent before the receiver knew the secrets) are not part of the figure.
    await sleep(1_000);
    await receiver.reset();
    const spans0 = (await tracing?.status())?.spans ?? 0;
    const spent = cpuFromNow(d, receiver, tracing);
    const { result, status, n, elapsed, eventsPerSecond } = await deliveredRun(
      receiver,
      d.base,
      companies,
      Number(amount ?? 8),
    );
    // Read right after the last arrival, like a run without tracing; at most the batch
    // processor's queue (2,048 spans) is still to be exported then.
    const cpu = spent(n);
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
    if (tracing) await reportSpans(tracing, spans0, n, cpu.sink);
  } finally {
    await d.stop();
  }
}

/**
 * `fixed [seconds=30]`: callbacks at FIXED_RATE after two warm-ups (max rate, then the fixed rate
 * for BENCH_WARM_FIXED s); CPU per callback, and callback → webhook p50/p99/max per second of sending.
 */
export async function fixed({ amount, dir, cpuProf, receiver, tracing }) {
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
    const spent = cpuFromNow(d, receiver, tracing);
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
    const daemon = spent(n);
    console.log(
      `daemon CPU per callback (with its events): event loop ${daemon.loop}, all threads ${daemon.all}; receiver ${daemon.receiver}; load generator ${daemon.load}`,
    );
    console.log(`daemon CPU per callback by thread id: ${daemon.threads}`);
    console.log(`machine CPU busy / idle / stolen: ${percents(cpu.whole)} %`);
    if (tracing) await reportSpans(tracing, spans0, n, daemon.sink);
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
}

/**
 * `replay [count=20000]`: `count` failed deliveries (rounded down to a multiple of COMPANIES),
 * prefilled over one endpoint per company, replayed in bulk by one admin call.
 */
export async function replay({ amount, dir, cpuProf, receiver }) {
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
    const spent = cpuFromNow(d, receiver, undefined);
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
    const daemon = spent(count);
    console.log(
      `daemon CPU per delivery: event loop ${daemon.loop}, all threads ${daemon.all}; receiver ${daemon.receiver}`,
    );
    console.log(`daemon CPU per delivery by thread id: ${daemon.threads}`);
  } finally {
    await d.stop();
  }
}

/**
 * The CPU the daemon (its event loop, all its threads, each thread), the receiver, this load
 * generator and the tracing sink spend from now: `spent(n)` answers each in µs per unit of n.
 */
function cpuFromNow(d, receiver, tracing) {
  const [m0, t0, r0, b0, g0, s0] = [
    mainThread(d.pid),
    cpuMsOf(d.pid),
    cpuMsOf(receiver.pid),
    byTid(d.pid),
    cpuMsOf(process.pid),
    tracing ? cpuMsOf(tracing.pid) : 0,
  ];
  return (n) => ({
    loop: us(mainThread(d.pid) - m0, n),
    all: us(cpuMsOf(d.pid) - t0, n),
    receiver: us(cpuMsOf(receiver.pid) - r0, n),
    load: us(cpuMsOf(process.pid) - g0, n),
    sink: tracing ? us(cpuMsOf(tracing.pid) - s0, n) : '',
    threads: perThread(d.pid, b0, n),
  });
}
