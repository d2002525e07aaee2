// The ingest scenarios of bench.mjs: bare Koa, the baseline of every ratio to it (0); signed callbacks
// at maximum rate with deliveries paused, in turn with the ingest floors, and whether every callback
// answered 2xx was stored (1); the same on a big store in turn with an empty one (4).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { alternateIngest } from './alternate.mjs';
import { floorRows, startIngestFloors } from '../floors/floors.mjs';
import { ROOT, setupCompanies } from './lib.mjs';
import { percents, sampleMachine } from './proc-stats.mjs';
import { prefillStore } from './prefill.mjs';

/** Scenario 0: the rows of bare Koa's maximum rate (`bareBaseline()` measures it once a run). */
export async function bareKoaScenario({ row, bareBaseline }) {
  const bare = await bareBaseline();
  row('0 bare Koa', 'requests/s', bare.rps);
  row('0 bare Koa', 'CPU per request: bare Koa / load generator (µs)', bare.cpu);
}

/**
 * Scenario 1. `daemon(name)` starts a built daemon on the data dir `dataDir(name)`; `rounds` are the
 * alternating rounds (alternate.mjs); `runs` is benchRuns' (runs.mjs); `companies` how many companies.
 */
export async function ingestScenario({ daemon, dataDir, row, P, rounds, runs, bareBaseline, companies: count }) {
  const { checkLoad, floorFigures } = runs;
  const bare = await bareBaseline();
  const d = await daemon('s1-ingest');
  let floors;
  let accepted;
  try {
    floors = await startIngestFloors(dataDir('s1-floors'), count);
    const companies = await setupCompanies(d.base, null, count);
    const gateway = { name: 'gateway', base: d.base, companies, pids: [d.pid] };
    const machine = sampleMachine();
    const [result, ...floorResults] = await alternateIngest([gateway, ...floors.contestants], {
      ...rounds,
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
}

/** Scenario 4: scenario 1's load on a store prefilled with `P.prefill`, in turn with an empty store. */
export async function bigStoreScenario({ daemon, dataDir, row, log, P, rounds, runs, companies: count }) {
  let d = await daemon('s4-big');
  const companies = await setupCompanies(d.base, null, count);
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
    const emptyCompanies = await setupCompanies(e.base, null, count);
    d = await daemon('s4-big');
    const [big, empty] = await alternateIngest(
      [
        { name: 'big store', base: d.base, companies, pids: [d.pid] },
        { name: 'empty store', base: e.base, companies: emptyCompanies, pids: [e.pid] },
      ],
      { ...rounds, warmSeconds: P.warm, checkLoad: runs.checkLoad },
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
    row('4 big store', 'latency p50 / p99 (ms), mean of the rounds', `${big.p50.toFixed(1)} / ${big.p99.toFixed(1)}`, {
      baseline: `${empty.p50.toFixed(1)} / ${empty.p99.toFixed(1)}`,
    });
  } finally {
    await d.stop();
    await e.stop();
  }
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
