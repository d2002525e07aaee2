// The embedded daemon's delivery scenarios of bench.mjs: scenario 1's load with deliveries on and
// the receiver verifying every signature, in turn with the deliver floors (2); then a fixed rate, its
// latencies callback → webhook and its RSS, after bare Koa's answer latencies at that rate (3).
import { alternateEndToEnd } from './alternate.mjs';
import { floorRows, startDeliverFloors } from '../floors/floors.mjs';
import { setupCompanies } from './lib.mjs';
import { percents, sampleMachine } from './proc-stats.mjs';
import { fixedRate, maxRate } from './load.mjs';
import { BARE_TARGETS, startBareKoa } from './baseline.mjs';

/**
 * Scenario 2. `daemon(name)` starts a built daemon on the data dir `dataDir(name)`; `rounds` are the
 * alternating rounds (alternate.mjs); `runs` is benchRuns' (runs.mjs); `companies` how many companies.
 * Leaves the run's end-to-end rates in `shared.e2e`, which the fixed rates of later scenarios follow.
 */
export async function endToEndScenario({
  daemon,
  dataDir,
  receiver,
  row,
  P,
  rounds,
  runs,
  bareBaseline,
  shared,
  companies: count,
}) {
  const { checkLoad, floorFigures, e2eContestant, e2eRows } = runs;
  await bareBaseline();
  const d = await daemon('s2-e2e');
  let floors;
  try {
    floors = await startDeliverFloors({
      receiver,
      dir: dataDir('s2-floors'),
      companies: count,
      warmSeconds: P.warm,
      drainMs: P.drainMs,
    });
    // The floors' endpoints are the receiver's first `count` indexes, the gateway's the next ones.
    const companies = await setupCompanies(d.base, receiver.url, count, 1, count);
    const gateway = e2eContestant('gateway', d, [d.pid], companies);
    const machine = sampleMachine();
    const webhookCompanies = [...floors.webhookCompanies, ...companies];
    const [result, ...floorResults] = await alternateEndToEnd([gateway, ...floors.contestants], {
      receiver,
      webhookCompanies,
      ...rounds,
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
}

/** Scenario 3: `rate` callbacks/s (runs.mjs fixedRateOf) for `P.fixed` s on the embedded daemon. */
export async function fixedRateScenario({ daemon, receiver, row, P, runs, rate, companies: count }) {
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
    const companies = await setupCompanies(d.base, receiver.url, count);
    await runs.fixedRun('3 fixed rate', d, companies, [d.pid], P.fixed, 50, 10, rate);
  } finally {
    await d.stop();
  }
}
