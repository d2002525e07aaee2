// What the scenarios of bench.mjs share: the rate of the fixed-rate runs, the fixed-rate phase (its
// latencies callback → webhook and the RSS of its processes), the check of a load's answers, a daemon
// as an end-to-end contestant (alternate.mjs), and the rows of end-to-end figures and of the floors.
import { percentile } from './lib.mjs';
import { percents, rssThirds, sampleMachine, sampleRss } from './proc-stats.mjs';
import { fixedRate, waitArrivals, waitIdle, warmUp } from './load.mjs';

const mb = (bytes) => bytes / 1024 / 1024;

/** The fixed rate (callbacks/s) of a run whose scenario 2 did not run. */
export const RATE = 1_000;

/**
 * The fixed rate of a run: half its own maximum end-to-end rate (callbacks whose message.create
 * arrived per second), rounded to 50; RATE when that scenario did not run; BENCH_FIXED_RATE when set.
 */
export function fixedRateOf(e2e) {
  if (process.env.BENCH_FIXED_RATE) return Number(process.env.BENCH_FIXED_RATE);
  return e2e === undefined ? RATE : Math.max(50, Math.round(e2e.delivered / 2 / 50) * 50);
}

/**
 * The runs and rows the scenarios share, bound to the bench's receiver, its table (`row`), its log,
 * its durations `P` and its bare-Koa baseline (`bare()`, once measured).
 */
export function benchRuns({ receiver, row, log, P, bare }) {
  function checkLoad(result, what) {
    if (result.errors > 0 || result.non2xx > 0 || result.failed > 0)
      throw new Error(`${what}: ${result.errors ?? 0} errors, ${result.non2xx ?? result.failed ?? 0} non-2xx answers`);
  }

  /** Fixed rate: latencies callback → webhook, and the RSS of the given processes. */
  async function fixedRun(label, d, companies, pids, seconds, p99Target, p50Target, rate) {
    await receiver.useCompanies(companies);
    await warmUp({
      receiver,
      base: d.base,
      companies,
      seconds: P.warm,
      drainMs: P.drainMs,
      what: label,
      connections: 8,
      check: checkLoad,
    });
    // Then the load of the steady phase itself, shorter, so that neither side starts it cold: its
    // first seconds otherwise fall behind by hundreds of ms (scripts/bench/probes/cpu.mjs fixed shows it).
    const warmFixed = await fixedRate({ base: d.base, companies, rate, seconds: P.warmFixed });
    if ((await waitArrivals(receiver, warmFixed.accepted, P.drainMs)).missing > 0)
      throw new Error('warm-up events never arrived');
    // The steady phase starts on an idle pipeline, not on the warm-up's attempt records and commits.
    const idle = await waitIdle(d.base, P.drainMs);
    log(
      `${label}: pipeline idle ${(idle.waitedMs / 1000).toFixed(1)} s after the warm-up's webhooks arrived${idle.left === null ? '' : `; still busy, going on: ${idle.left.join(', ')}`}`,
    );
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
    log(
      `${label}: callback→webhook p99 per second of sending (ms): ${perSecondP99(result.accepted, await receiver.latenciesOf(result.accepted), rate).join(' ')}`,
    );
    // A second whose p99 jumps while the steal jumps was the hypervisor's, not the daemon's.
    log(`${label}: machine CPU stolen per second (%): ${cpu.intervals.map((i) => i.steal.toFixed(0)).join(' ')}`);
    row(label, 'rate asked (callbacks/s): half the maximum end-to-end rate of this run', rate);
    row(label, 'rate achieved (callbacks/s)', result.rate);
    row(label, 'machine CPU busy / idle / stolen (%)', percents(cpu.whole));
    row(
      label,
      'callback→webhook p50 (ms)',
      p50,
      p50Target === null ? {} : { target: `≤ ${p50Target}`, ok: p50 <= p50Target },
    );
    row(label, 'callback→webhook p99 (ms)', p99, { target: `≤ ${p99Target}`, ok: p99 <= p99Target });
    row(label, 'callback→webhook p999 (ms)', p999);
    row(label, 'callback answer p50 / p99 (ms)', `${result.p50.toFixed(1)} / ${result.p99.toFixed(1)}`);
    for (const [pid, list] of Object.entries(samples)) {
      const name = pids.length > 1 ? ` ${pid === String(pids[0]) ? 'core' : 'worker'}` : '';
      // Thirds of the steady phase: a minute each in the full run.
      const { peak, first, last } = rssThirds(
        list,
        list.filter((s) => s.t >= P.steadyFrom * 1000),
      );
      // The whole series, a mean per 5 s: where V8's collection cycle was at the windows compared.
      const avg = (xs) => xs.reduce((a, s) => a + s.rss, 0) / xs.length;
      const fives = [];
      for (const sample of list) (fives[Math.floor(sample.t / 5_000)] ??= []).push(sample);
      log(`${label}: RSS${name} per 5 s (MB): ${fives.map((xs) => (xs ? mb(avg(xs)).toFixed(0) : '-')).join(' ')}`);
      row(label, `peak RSS${name} (MB)`, peak, { target: '≤ 200', ok: peak <= 200 });
      row(label, `RSS${name} steady phase, first → last third (MB)`, `${first.toFixed(0)} → ${last.toFixed(0)}`, {
        ratio: last / first,
        target: 'growth < 5 %',
        ok: last / first < 1.05,
      });
    }
    return { p50, p99 };
  }
  /** Rows of the floors measured beside a gateway run: their figure against bare Koa, and their CPU per callback. */
  function floorFigures(label, floors, results, unit, cpuOf) {
    floors.forEach((floor, i) => {
      row(label, `${floor.name}: ${unit}`, results[i].value, {
        baseline: bare().rps,
        ratio: results[i].value / bare().rps,
      });
      const [parts, values] = cpuOf(results[i]);
      row(label, `${floor.name}: CPU per callback, ${parts} (µs)`, values);
    });
  }

  /** A daemon (or a core with its worker) as a contestant end to end: its webhooks verified with its companies' secrets. */
  function e2eContestant(name, d, pids, companies, preWarmSeconds = 0) {
    return {
      name,
      base: d.base,
      pids,
      companies,
      latencies: true,
      warm: async () => {
        // Kafka: senders of their own first, so that the measured rounds meet as many new senders (two
        // events per callback instead of one) as the embedded daemon's do.
        for (const [seconds, firstSender] of [
          [preWarmSeconds, 900_000],
          [P.warm, undefined],
        ]) {
          if (seconds > 0)
            await warmUp({
              receiver,
              base: d.base,
              companies,
              seconds,
              drainMs: P.drainMs,
              what: name,
              firstSender,
              check: checkLoad,
            });
        }
      },
    };
  }

  /** Rows of a daemon's end-to-end figures (alternate.mjs alternateEndToEnd). */
  function e2eRows(label, result) {
    const p = (q) => percentile(result.latencies, q).toFixed(1);
    // Bare Koa is measured by scenario 0 or 1; a run of other scenarios alone (--only) has no such baseline.
    const base = bare();
    row(
      label,
      'events delivered/s (all verified; baseline: bare Koa)',
      result.eventsPerSecond,
      base ? { baseline: base.rps, ratio: result.eventsPerSecond / base.rps } : {},
    );
    row(label, 'callbacks delivered/s (message.create arrived)', result.callbacksPerSecond);
    row(label, 'callback→webhook p50 / p99 / p999 (ms)', `${p(50)} / ${p(99)} / ${p(99.9)}`);
    row(
      label,
      'CPU per callback, daemon / receiver / load generator (µs)',
      `${result.ownUs.toFixed(0)} / ${result.receiverUs.toFixed(0)} / ${result.loadUs.toFixed(0)}`,
    );
  }

  return { checkLoad, fixedRun, floorFigures, e2eContestant, e2eRows };
}

/** p99 of each second of a fixed-rate run, from message numbers taken in send order at `rate` a second. */
function perSecondP99(accepted, latencies, rate) {
  // A loop, not Math.min(...accepted): a run of 3 minutes has more numbers than the stack takes arguments.
  const first = accepted.reduce((a, b) => (b < a ? b : a), Infinity);
  const seconds = [];
  accepted.forEach((n, i) => (seconds[Math.floor((n - first) / rate)] ??= []).push(latencies[i] ?? Infinity));
  return [...seconds].map((list = []) =>
    percentile(
      list.sort((a, b) => a - b),
      99,
    ).toFixed(0),
  );
}
