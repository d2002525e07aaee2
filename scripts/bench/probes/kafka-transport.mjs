#!/usr/bin/env node
// What Kafka mode's transport alone costs per event on these cores: the least client code for the
// round trip Kafka mode adds to an event's delivery, with nothing else in it (no HTTP, no store).
// A "core" process publishes delivery jobs of about the daemon's size (1.2 kB of JSON, 32 keys,
// packed up to 64 to a record per partition, idempotent, acks -1, as src/streams/kafka/kafka-records.ts
// packs them); a "worker" process consumes them in a group, parses each and publishes one attempt
// record (about 300 B) per job, packed the same way; the core consumes the records in a group. Each
// batch's offset is committed once it was handled. Prints the round trips per second and the CPU per
// job of the core, the worker and the broker (the least Kafka mode can spend per event beside the
// embedded daemon's work), and the requests per 1000 jobs each end sent (produce, fetch, commit).
//
//   node scripts/bench/probes/kafka-transport.mjs [seconds=10] [turns=1]
//   TRANSPORT_CLIENTS=kafkajs,platformatic PLATFORMATIC_KAFKA_DIR=/tmp/pk/node_modules/@platformatic/kafka \
//     node scripts/bench/probes/kafka-transport.mjs 10 3
//
// TRANSPORT_CLIENTS names the client libraries (kafka-transport-clients.mjs), default kafkajs: each
// turn runs each of them once, in the order given (A B A B ...), on the same broker, fresh topics and
// groups and fresh core and worker processes for each run. With two clients it ends with the second's
// CPU per job over the first's, per turn and process, and their median over the turns.
// @platformatic/kafka is not a dependency of the project: install it outside the repo and name its
// folder in PLATFORMATIC_KAFKA_DIR.
//
// Uses the test broker (scripts/kafka/kafka.sh, leased for the run). After a warm-up of 5 s the load
// keeps TRANSPORT_WINDOW jobs (default 256) whose record has not come back in flight, published
// TRANSPORT_BATCH at a time (default 32, a group commit's worth under load).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sleep, testBroker } from '../suite/lib.mjs';
import { cpuMsOf } from '../suite/proc-stats.mjs';
import { checkClients } from './kafka-transport-clients.mjs';
import { message } from './kafka-transport-ends.mjs';

const WARM_UP_MS = 5_000;
const PROCESSES = ['core', 'worker', 'broker'];
const ENDS = fileURLToPath(new URL('./kafka-transport-ends.mjs', import.meta.url));

const [seconds = '10', turns = '1'] = process.argv.slice(2);
await measure(Number(seconds), Number(turns));

/** One run of `clientName`: its core and worker under load, measured over `seconds` after the warm-up. */
async function run(clientName, brokers, brokerPid, seconds) {
  const namespace = `transport-${process.pid}-${Date.now()}.`;
  const children = [];
  const start = (role) => {
    const child = fork(ENDS, [role, clientName, brokers, namespace], { stdio: 'inherit' });
    children.push(child);
    return child;
  };
  try {
    const coreProcess = start('--core');
    await message('topics', coreProcess);
    const workerProcess = start('--worker');
    await message('ready', workerProcess);
    coreProcess.send('start');
    await message('loading', coreProcess);
    await sleep(WARM_UP_MS);
    const pids = { core: coreProcess.pid, worker: workerProcess.pid, broker: brokerPid };
    const sample = async () => {
      const [coreCounts, workerCounts] = await Promise.all(
        [coreProcess, workerProcess].map((child) => {
          const answer = message('count', child);
          child.send('count');
          return answer;
        }),
      );
      const cpu = Object.fromEntries(PROCESSES.map((name) => [name, cpuMsOf(pids[name])]));
      return {
        at: performance.now(),
        cpu,
        answered: coreCounts.answered,
        core: coreCounts.requests,
        worker: workerCounts.requests,
      };
    };
    const before = await sample();
    await sleep(seconds * 1000);
    const after = await sample();
    const jobs = after.answered - before.answered;
    const perJob = (ms) => (ms * 1000) / jobs;
    const per1000 = (end) =>
      Object.fromEntries(
        Object.keys(after[end]).map((kind) => [kind, ((after[end][kind] - before[end][kind]) * 1000) / jobs]),
      );
    return {
      jobs,
      elapsed: (after.at - before.at) / 1000,
      cpu: Object.fromEntries(PROCESSES.map((name) => [name, perJob(after.cpu[name] - before.cpu[name])])),
      requests: { core: per1000('core'), worker: per1000('worker') },
    };
  } finally {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null) return;
        const stopped = message('stopped', child).catch(() => {});
        child.send('stop');
        await Promise.race([stopped, sleep(10_000)]);
        child.kill();
      }),
    );
  }
}

/** Runs each client of TRANSPORT_CLIENTS once per turn, prints each run and, for two clients, the ratios. */
async function measure(seconds, turns) {
  const clients = (process.env.TRANSPORT_CLIENTS ?? 'kafkajs').split(',').map((name) => name.trim());
  await checkClients(clients);
  const broker = testBroker();
  if (broker.run('start').status !== 0)
    throw new Error('the Kafka test broker could not be started (scripts/kafka/kafka.sh start)');
  const results = clients.map(() => []);
  try {
    for (let turn = 1; turn <= turns; turn += 1) {
      for (const [index, name] of clients.entries()) {
        const result = await run(name, broker.brokers, broker.pid(), seconds);
        results[index].push(result);
        console.log(`turn ${turn} ${describe(name, result)}`);
      }
    }
  } finally {
    broker.run('release');
  }
  if (clients.length !== 2) return;
  console.log(`${clients[1]}/${clients[0]}, CPU per job:`);
  const ratios = results[1].map((second, turn) => {
    const first = results[0][turn];
    return Object.fromEntries([...PROCESSES, 'all'].map((name) => [name, cpuOf(second, name) / cpuOf(first, name)]));
  });
  ratios.forEach((ratio, turn) => console.log(`  turn ${turn + 1}: ${ratioLine(ratio)}`));
  const median = (values) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
  const medians = Object.fromEntries(Object.keys(ratios[0]).map((name) => [name, median(ratios.map((r) => r[name]))]));
  console.log(`  median: ${ratioLine(medians)}`);
}

/** CPU per job of one process of a run, or of all three (`all`). */
function cpuOf(result, name) {
  return name === 'all' ? PROCESSES.reduce((sum, each) => sum + result.cpu[each], 0) : result.cpu[name];
}

function ratioLine(ratio) {
  return Object.entries(ratio)
    .map(([name, value]) => `${name} ${value.toFixed(2)}`)
    .join(', ');
}

function describe(name, result) {
  const cpu = PROCESSES.map((process) => `${process} ${result.cpu[process].toFixed(0)} µs`).join(', ');
  const requests = ['core', 'worker']
    .map(
      (end) =>
        `${end} ${Object.entries(result.requests[end])
          .map(([kind, n]) => `${kind} ${n.toFixed(0)}`)
          .join(' ')}`,
    )
    .join(', ');
  return (
    `${name}: ${result.jobs} jobs and their records in ${result.elapsed.toFixed(1)} s = ${(result.jobs / result.elapsed).toFixed(0)} round trips/s; ` +
    `CPU per job: ${cpu}, all three ${cpuOf(result, 'all').toFixed(0)} µs; requests per 1000 jobs: ${requests}`
  );
}
