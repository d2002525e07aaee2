// Scenario 9, a sharded cluster (docs/scaling.md): two cores, a front and one worker on the test
// broker, in turn with a single core and its worker in Kafka mode (scenario 6's Kafka side), both
// under the same signed callbacks at a fixed rate well under saturation, the cluster's through its
// front, and the single core once more at half that rate (what each shard's core sees). It answers
// the CPU per callback of every process of each, and the cluster's ratio to both; then, under the
// same load, one shard's core is killed (SIGKILL) and started again on its store, and it answers
// the other shard's latencies during the outage against before, and whether every callback
// accepted by either shard reached the receiver.
import { performance } from 'node:perf_hooks';
import { shardOfId } from '../../../dist/src/lib/shards.js';
import { freePort, setupCompanies, sleep, testBroker } from './lib.mjs';
import { cpuMsOf, sampleMachine } from './proc-stats.mjs';
import { fixedRate, waitArrivals, waitIdle, warmUp } from './load.mjs';
import { clusterOutage } from './cluster-outage.mjs';
import { cpuRows } from './cluster-rows.mjs';

/** Shard slots, as `gateway cluster` sets them; the cluster runs shards 0 and 1 of them. */
const SLOTS = 64;
const SHARDS = 2;
/** The cluster's CPU per callback may be at most this many times the single core's (issue 47). */
const TARGET = 1.15;

/**
 * Runs scenario 9. `daemon(name, options)` starts a built daemon on a data dir of the run; `P.cluster`
 * holds its rate, rounds and phases; `companies` is how many companies each contestant serves.
 */
export async function clusterScenario({ daemon, receiver, row, log, P, companies: count, checkLoad }) {
  const { rate } = P.cluster;
  const broker = testBroker();
  if (broker.run('start').status !== 0)
    throw new Error('the Kafka test broker could not be started (scripts/kafka/kafka.sh start)');
  const started = [];
  /** Starts daemons side by side; every one that started is stopped at the end, whatever else failed. */
  const startAll = async (starts) => {
    const settled = await Promise.allSettled(starts);
    for (const s of settled) if (s.status === 'fulfilled') started.push(s.value);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((s) => s.value);
  };
  try {
    const { core, worker, cluster } = await startProcesses(daemon, broker.brokers, startAll, log);
    const single = {
      name: 'single core',
      rate,
      base: core.base,
      cores: [core],
      processes: () => [
        ['core', core.pid],
        ['worker', worker.pid],
      ],
      companies: await setupCompanies(core.base, receiver.url, count),
    };
    const sharded = {
      name: '2-shard cluster',
      rate,
      base: cluster.front.base,
      cores: cluster.cores,
      processes: () => [
        ...cluster.cores.map((c, shard) => [`core ${shard}`, c.pid]),
        ['front', cluster.front.pid],
        ['worker', cluster.worker.pid],
      ],
      // Created through the front, which gives new companies to the live shards in turn.
      companies: await setupCompanies(cluster.front.base, receiver.url, count, 1, count),
    };
    const shards = sharded.companies.map((c) => shardOfId(Number(c.companyId), SLOTS));
    for (let shard = 0; shard < SHARDS; shard++)
      if (!shards.includes(shard)) throw new Error(`the front gave shard ${shard} none of the ${count} companies`);
    await receiver.useCompanies([...single.companies, ...sharded.companies]);

    // The single core again at the rate each shard's core sees in the cluster: a process on this
    // host spends more CPU per request the fewer it serves a second (fewer share a wake, a commit, a
    // fetch), so this tells what the cluster adds from what the lower rate per core costs.
    const singleAtShardRate = { ...single, name: "single core at one shard's rate", rate: rate / SHARDS };
    const contestants = [single, sharded, singleAtShardRate];
    for (const c of [single, sharded]) {
      await warmUp({
        receiver,
        base: c.base,
        companies: c.companies,
        seconds: P.warm,
        drainMs: P.drainMs,
        what: c.name,
      });
      const warm = await fixedRate({ base: c.base, companies: c.companies, rate: c.rate, seconds: P.warmFixed });
      checkLoad(warm, `${c.name}: warm-up`);
      if ((await waitArrivals(receiver, warm.accepted, P.drainMs)).missing > 0)
        throw new Error(`${c.name}: warm-up events never arrived`);
      for (const d of c.cores) await waitIdle(d.base, P.drainMs);
    }
    const idle = await idleCpu(contestants, P.cluster.idleSeconds);

    const machine = sampleMachine();
    const tallies = contestants.map(() => ({
      callbacks: 0,
      seconds: 0,
      cpuMs: {},
      receiverMs: 0,
      loadMs: 0,
      latencies: [],
      rounds: [],
    }));
    for (let round = 0; round < P.cluster.rounds; round++) {
      for (let i = 0; i < contestants.length; i++) {
        // Each round opens with another contestant, so that none always follows the same.
        const index = (round + i) % contestants.length;
        const measured = await measureRound(contestants[index], { receiver, P, checkLoad });
        const tally = tallies[index];
        tally.callbacks += measured.callbacks;
        tally.seconds += measured.seconds;
        for (const [name, ms] of Object.entries(measured.cpuMs)) tally.cpuMs[name] = (tally.cpuMs[name] ?? 0) + ms;
        tally.receiverMs += measured.receiverMs;
        tally.loadMs += measured.loadMs;
        for (const latency of measured.latencies) tally.latencies.push(latency);
        tally.rounds.push(measured.totalUs);
        log(
          `${contestants[index].name}, round ${round + 1}: ${measured.totalUs.toFixed(0)} µs per callback (${describe(measured.cpuMs, measured.callbacks)})`,
        );
      }
    }
    cpuRows(row, contestants, tallies, idle, {
      rate,
      seconds: P.cluster.seconds,
      machine: machine.stop().whole,
      target: TARGET,
      shards: SHARDS,
    });

    await clusterOutage({ cluster, sharded, shards, receiver, row, log, rate, P });
  } finally {
    for (const d of started.reverse()) await d.stop();
    broker.run('release');
  }
}

/**
 * The single core and its worker, on a namespace of their own; and the cluster: two cores (shards 0
 * and 1 of SLOTS), one worker serving both and a front that knows both, every process with the
 * front's address as the public one, as under `gateway cluster`. The processes of a kind start side
 * by side. `cluster.restartCore(shard)` starts a shard's core again on its store and port.
 */
async function startProcesses(daemon, brokers, startAll, log) {
  const namespace = `bench-${process.pid}-${Date.now()}.`;
  const single = { GATEWAY_KAFKA_BROKERS: brokers, GATEWAY_KAFKA_NAMESPACE: `${namespace}single.` };
  const frontPort = await freePort();
  const corePorts = [];
  for (let shard = 0; shard < SHARDS; shard++) corePorts.push(await freePort());
  const shardUrls = corePorts.map((port) => `http://127.0.0.1:${port}`).join(',');
  const common = {
    GATEWAY_KAFKA_BROKERS: brokers,
    GATEWAY_KAFKA_NAMESPACE: `${namespace}cluster.`,
    GATEWAY_SHARD_SLOTS: String(SLOTS),
    GATEWAY_CLUSTER_SHARDS: String(SHARDS),
    GATEWAY_PUBLIC_URL: `http://127.0.0.1:${frontPort}`,
  };
  const startCore = (shard) =>
    daemon(`s9-core-${shard}`, {
      role: 'core',
      port: corePorts[shard],
      env: { ...common, GATEWAY_SHARD: String(shard) },
    });
  const t = performance.now();
  const [core, ...cores] = await startAll([
    daemon('s9-single-core', { role: 'core', env: single, dir: 's9-single' }),
    ...Array.from({ length: SHARDS }, (_, shard) => startCore(shard)),
  ]);
  const [worker, clusterWorker] = await startAll([
    daemon('s9-single-worker', { role: 'worker', env: single, dir: 's9-single' }),
    daemon('s9-worker', { role: 'worker', env: { ...common, GATEWAY_SHARD_URLS: shardUrls } }),
  ]);
  const [front] = await startAll([
    daemon('s9-front', { role: 'front', port: frontPort, env: { ...common, GATEWAY_SHARD_URLS: shardUrls } }),
  ]);
  log(`cluster: ${4 + SHARDS} processes started in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const cluster = {
    cores,
    worker: clusterWorker,
    front,
    async restartCore(shard) {
      const [restarted] = await startAll([startCore(shard)]);
      cores[shard] = restarted;
      return restarted;
    },
  };
  return { core, worker, cluster };
}

/** What each process of each contestant spends with no load at all, in CPU ms per second: its fixed costs. */
async function idleCpu(contestants, seconds) {
  const before = contestants.map((c) => c.processes().map(([, pid]) => cpuMsOf(pid)));
  await sleep(seconds * 1000);
  return contestants.map((c, i) =>
    Object.fromEntries(c.processes().map(([name, pid], j) => [name, (cpuMsOf(pid) - before[i][j]) / seconds])),
  );
}

/**
 * One round of one contestant: `P.cluster.seconds` of callbacks at its rate, then the wait until every
 * event arrived verified and its cores' pipelines are idle (the attempt records and stream commits
 * a round sets off are its work too). Answers the CPU ms of each process, the receiver's and the
 * load generator's over that span, and the callback → webhook latencies.
 */
async function measureRound(c, { receiver, P, checkLoad }) {
  await receiver.reset();
  const processes = c.processes();
  const started = performance.now();
  const before = processes.map(([, pid]) => cpuMsOf(pid));
  const [received, load] = [cpuMsOf(receiver.pid), cpuMsOf(process.pid)];
  const result = await fixedRate({ base: c.base, companies: c.companies, rate: c.rate, seconds: P.cluster.seconds });
  checkLoad(result, c.name);
  const state = await waitArrivals(receiver, result.accepted, P.drainMs);
  if (state.bad > 0) throw new Error(`${c.name}: ${state.bad} webhooks failed signature verification`);
  if (state.missing > 0)
    throw new Error(
      `${c.name}: ${state.missing} of ${result.accepted.length} events never arrived within ${P.drainMs / 1000}s`,
    );
  for (const d of c.cores) await waitIdle(d.base, P.drainMs);
  const cpuMs = Object.fromEntries(processes.map(([name, pid], i) => [name, cpuMsOf(pid) - before[i]]));
  const total = Object.values(cpuMs).reduce((a, b) => a + b, 0);
  return {
    callbacks: result.accepted.length,
    seconds: (performance.now() - started) / 1000,
    cpuMs,
    totalUs: (total * 1000) / result.accepted.length,
    receiverMs: cpuMsOf(receiver.pid) - received,
    loadMs: cpuMsOf(process.pid) - load,
    latencies: await receiver.latencies(result.accepted),
  };
}

/** "core 180 / worker 160": µs per callback of each process, for a log line. */
function describe(cpuMs, callbacks) {
  return Object.entries(cpuMs)
    .map(([name, ms]) => `${name} ${((ms * 1000) / callbacks).toFixed(0)}`)
    .join(' / ');
}
