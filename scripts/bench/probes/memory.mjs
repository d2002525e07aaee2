#!/usr/bin/env node
// Does a daemon process keep memory it should not? Signed callbacks at a fixed rate with deliveries
// on (32 companies, the verifying receiver), in two equal halves, each followed by an idle pipeline
// and a heap snapshot of every daemon process (--heapsnapshot-signal), plus one taken after the
// warm-up. A snapshot follows a full collection, so its live heap does not depend on when V8 last
// collected or on how busy the machine is. Prints, per process, the live heap after the warm-up and
// after each half, the RSS per 5 s, and what the second half added that was still alive
// (heap-diff.mjs: new objects by constructor, with a retainer chain). Exits 1 when a process's live
// heap grew by more than 5 % over the second half: a process whose work is steady holds steady.
//
//   node scripts/bench/probes/memory.mjs embedded [seconds=120]    the all-in-one daemon
//   node scripts/bench/probes/memory.mjs kafka [seconds=120]       core + worker against the local broker
//
// BENCH_RATE=<callbacks/s> (default 1000; a busy machine keeps 300). BENCH_COMPANIES (default 32).
// BENCH_SNAPSHOTS=0: no snapshots (whose writing costs RSS), the RSS and where it is only.
// BENCH_KEEP=1 keeps the snapshots and logs. Needs a build (npm run build).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { printSummary } from './heap-diff.mjs';
import { freePort, ROOT, setupCompanies, sleep, startDaemon, testBroker } from '../suite/lib.mjs';
import { sampleRss } from '../suite/proc-stats.mjs';
import { fixedRate, waitArrivals, waitIdle } from '../suite/load.mjs';
import { startReceiver } from '../suite/sinks.mjs';

const [mode = 'embedded', amount] = process.argv.slice(2);
if (mode !== 'embedded' && mode !== 'kafka') throw new Error(`unknown mode ${mode}: embedded or kafka`);
const seconds = Number(amount ?? 120);
const rate = Number(process.env.BENCH_RATE ?? 1_000);
const companiesWanted = Number(process.env.BENCH_COMPANIES ?? 32);
/** Largest growth of the live heap over the second half. */
const HEAP_GROWTH_LIMIT = 1.05;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-memory-'));
const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
const log = (line) => process.stdout.write(`${line}\n`);

const snapshotArgs = (name) => {
  const where = path.join(dir, `snapshots-${name}`);
  fs.mkdirSync(where, { recursive: true });
  return ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${where}`];
};

/**
 * Where a process's resident memory is (Linux /proc/<pid>/smaps), in MB: the brk heap of malloc,
 * anonymous mappings of up to 1 MiB (V8's heap pages are 256 KiB), larger anonymous ones (malloc's
 * arenas of other threads, worker threads' stacks and heaps), files (code, libraries).
 */
function residentBy(pid) {
  const kinds = { malloc: 0, 'anon ≤ 1 MiB': 0, 'anon > 1 MiB': 0, files: 0, other: 0 };
  let kind = 'other';
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      const size = parseInt(head[2], 16) - parseInt(head[1], 16);
      const name = head[3];
      kind =
        name === '[heap]'
          ? 'malloc'
          : name === ''
            ? size <= 1024 * 1024
              ? 'anon ≤ 1 MiB'
              : 'anon > 1 MiB'
            : name.startsWith('/')
              ? 'files'
              : 'other';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kinds[kind] += Number(rss[1]) / 1024;
  }
  return kinds;
}

const snapshots = process.env.BENCH_SNAPSHOTS !== '0';
/** RSS by kind of mapping, then (unless BENCH_SNAPSHOTS=0) a heap snapshot: answers both. */
async function checkpoint(daemon, label) {
  const resident = residentBy(daemon.pid);
  return { resident, file: snapshots ? await snapshot(daemon, label) : null };
}

/** Signals the process to write a heap snapshot and waits until the file is complete. */
async function snapshot(daemon, label) {
  const where = path.join(dir, `snapshots-${daemon.name}`);
  const before = new Set(fs.readdirSync(where));
  process.kill(daemon.pid, 'SIGUSR2');
  const deadline = performance.now() + 300_000;
  for (;;) {
    if (performance.now() > deadline) throw new Error(`${daemon.name} wrote no heap snapshot within 300 s`);
    await sleep(500);
    const file = fs.readdirSync(where).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    if (file === undefined) continue;
    const full = path.join(where, file);
    // Written as one JSON document: complete once it parses to its last bracket and stops growing.
    const size = fs.statSync(full).size;
    await sleep(1_000);
    if (fs.statSync(full).size !== size || size === 0) continue;
    const tail = fs.readFileSync(full, 'utf8').trimEnd().slice(-1);
    if (tail !== '}') continue;
    const renamed = path.join(where, `${label}.heapsnapshot`);
    fs.renameSync(full, renamed);
    return renamed;
  }
}

const receiver = await startReceiver();
let broker = null;
const daemons = [];
let failed = false;
try {
  let base;
  if (mode === 'embedded') {
    const d = await startDaemon({
      name: 'embedded',
      dataDir: dir,
      port: await freePort(),
      nodeArgs: snapshotArgs('embedded'),
    });
    daemons.push(d);
    base = d.base;
  } else {
    broker = testBroker();
    if (broker.run('start').status !== 0)
      throw new Error('the Kafka test broker could not be started (scripts/kafka/kafka.sh start)');
    const env = {
      GATEWAY_KAFKA_BROKERS: broker.brokers,
      GATEWAY_KAFKA_NAMESPACE: `memory-${process.pid}-${Date.now()}.`,
    };
    const core = await startDaemon({
      name: 'core',
      dataDir: dir,
      port: await freePort(),
      role: 'core',
      env,
      nodeArgs: snapshotArgs('core'),
    });
    daemons.push(core);
    daemons.push(
      await startDaemon({ name: 'worker', dataDir: dir, role: 'worker', env, nodeArgs: snapshotArgs('worker') }),
    );
    base = core.base;
  }
  const companies = await setupCompanies(base, receiver.url, companiesWanted);
  await receiver.useCompanies(companies);

  /** Load at the fixed rate, then waits until every event arrived and the pipeline is idle. */
  const phase = async (length) => {
    const result = await fixedRate({ base, companies, rate, seconds: length });
    const state = await waitArrivals(receiver, result.accepted, 120_000);
    if (state.missing > 0 || state.bad > 0)
      throw new Error(`${state.missing} events missing, ${state.bad} bad signatures`);
    await waitIdle(base, 60_000);
    // The relay's and the attempt recorder's timers of the last events: let them run out.
    await sleep(2_000);
    return result;
  };

  const started = performance.now();
  await phase(Math.min(15, seconds / 4));
  const taken = { warm: [], half: [], end: [] };
  for (const d of daemons) taken.warm.push(await checkpoint(d, '1-warm'));
  const rss = sampleRss(
    daemons.map((d) => d.pid),
    1_000,
  );
  const first = await phase(seconds / 2);
  for (const d of daemons) taken.half.push(await checkpoint(d, '2-half'));
  const second = await phase(seconds / 2);
  for (const d of daemons) taken.end.push(await checkpoint(d, '3-end'));
  const samples = rss.stop();
  log(
    `${mode}: ${first.accepted.length + second.accepted.length} callbacks at ${rate}/s over two halves of ${seconds / 2} s (${((performance.now() - started) / 1000).toFixed(0)} s in all), every event delivered and verified`,
  );

  for (const [index, d] of daemons.entries()) {
    const list = samples[d.pid];
    const fives = [];
    for (const s of list) (fives[Math.floor(s.t / 5_000)] ??= []).push(s.rss);
    log(
      `\n${d.name}: RSS per 5 s (MB${snapshots ? ", the snapshots' own cost included" : ''}): ${fives.map((xs) => (xs ? mb(xs.reduce((a, b) => a + b, 0) / xs.length).slice(0, -2) : '-')).join(' ')}`,
    );
    const at = (which) =>
      Object.entries(taken[which][index].resident)
        .map(([kind, value]) => `${kind} ${value.toFixed(1)}`)
        .join(', ');
    log(
      `resident by mapping (MB) after the warm-up: ${at('warm')}\n  after the first half: ${at('half')}\n  after the second half: ${at('end')}`,
    );
    if (!snapshots) continue;
    const warmToHalf = diff(taken.warm[index].file, taken.half[index].file, 5);
    log(
      `first half (the caches filling, the JIT's code): live heap ${mb(warmToHalf.firstBytes)} → ${mb(warmToHalf.secondBytes)} MB`,
    );
    const halfToEnd = diff(taken.half[index].file, taken.end[index].file, 15);
    log('second half:');
    printSummary(halfToEnd, (line) => log(`  ${line}`));
    const growth = halfToEnd.secondBytes / halfToEnd.firstBytes;
    const ok = growth <= HEAP_GROWTH_LIMIT;
    if (!ok) failed = true;
    log(
      `${d.name}: live heap growth over the second half ${growth.toFixed(3)} (limit ${HEAP_GROWTH_LIMIT}): ${ok ? 'flat' : 'GROWING'}`,
    );
  }
} finally {
  for (const d of daemons.reverse()) await d.stop();
  await receiver.close();
  broker?.run('release');
  if (process.env.BENCH_KEEP) log(`kept ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/** heap-diff's summary in a process of its own, with the heap a large snapshot's JSON needs. */
function diff(firstFile, secondFile, top) {
  const script = `import(${JSON.stringify(path.join(ROOT, 'scripts/bench/probes/heap-diff.mjs'))}).then((m) => process.stdout.write(JSON.stringify(m.summary(${JSON.stringify(firstFile)}, ${JSON.stringify(secondFile)}, ${top}))))`;
  const out = spawnSync(process.execPath, ['--max-old-space-size=4096', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (out.status !== 0) throw new Error(`heap-diff failed: ${out.stderr}`);
  return JSON.parse(out.stdout);
}
