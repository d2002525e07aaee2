// cpu.mjs ingest and ingest-fixed: the daemon's ingest path alone (companies without webhook
// endpoints, as bench scenario 1), CPU per callback until the outbox relay has caught up.
import { call, freePort, setupCompanies, sleep, startDaemon } from '../../suite/lib.mjs';
import { byTid, cpuMsOf, mainThread, perThread, us } from '../../suite/proc-stats.mjs';
import { fixedRate, maxRate } from '../../suite/load.mjs';
import { COMPANIES } from './shared.mjs';

/** `ingest [seconds=8]`: callbacks at maximum rate. */
export const ingest = (probe) => ingestRun(probe, 'ingest');

/**
 * `ingest-fixed [seconds=20]`: callbacks at 1,000/s, the same arrivals whatever the code's speed,
 * so group commits of the same sizes.
 */
export const ingestFixed = (probe) => ingestRun(probe, 'ingest-fixed');

async function ingestRun({ amount, dir, cpuProf, root }, mode) {
  const d = await startDaemon({
    name: 'cpu-ingest',
    dataDir: dir,
    port: await freePort(),
    cpuProf,
    root,
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
}
