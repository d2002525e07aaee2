// Two Kafka-mode pairs (a core and its worker, each pair on a namespace of its own) that differ in
// their GATEWAY_* settings, in turn under signed callbacks at a fixed rate: the way to judge a
// Kafka setting (GATEWAY_KAFKA_LINGER, say) by its CPU per callback. A round sends `seconds` of
// callbacks to one pair and waits until every event arrived and the core is idle; each pair's
// CPU per callback counts its core, its worker and the broker they share (only one pair is loaded
// at a time). Prints each round and, per pair, the median of its rounds and B's ratio to A.
//
// Usage: node scripts/bench/probes/kafka-setting.mjs "<A settings>" "<B settings>" [rounds=4] [rate=1000] [seconds=15]
// settings: space-separated KEY=value, e.g. "GATEWAY_KAFKA_LINGER=0" "GATEWAY_KAFKA_LINGER=5ms"
// (a pair's settings may be empty: ""). ROOT=<checkout> runs that checkout's build instead of this
// one, to compare two builds: "ROOT=/tmp/old" ""; NODE_ARGS=<flag>,<flag> adds node flags to the
// pair's daemons, CORE_NODE_ARGS and WORKER_NODE_ARGS to one of them (the last of a flag counts).
// Needs a build (npm run build) and starts the test broker.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, setupCompanies, startDaemon, testBroker } from '../suite/lib.mjs';
import { fixedRate, waitArrivals, waitIdle, warmUp } from '../suite/load.mjs';
import { cpuMsOf } from '../suite/proc-stats.mjs';
import { startReceiver } from '../suite/sinks.mjs';

const [aText = '', bText = '', roundsText = '4', rateText = '1000', secondsText = '15'] = process.argv.slice(2);
const [rounds, rate, seconds] = [roundsText, rateText, secondsText].map(Number);
const COMPANIES = 16;
const DRAIN_MS = 120_000;

const settingsOf = (text) =>
  Object.fromEntries(
    text
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => kv.split(/=(.*)/s, 2)),
  );
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const broker = testBroker();
if (broker.run('start').status !== 0) throw new Error('the Kafka test broker could not be started');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-setting-'));
const receiver = await startReceiver();
const started = [];
try {
  const pairs = [];
  for (const [name, text] of [
    ['A', aText],
    ['B', bText],
  ]) {
    const {
      ROOT: build,
      NODE_ARGS: nodeArgs = '',
      CORE_NODE_ARGS: coreNodeArgs = '',
      WORKER_NODE_ARGS: workerNodeArgs = '',
      ...settings
    } = settingsOf(text);
    const flags = (...lists) => lists.flatMap((list) => list.split(',').filter(Boolean));
    const env = {
      GATEWAY_KAFKA_BROKERS: broker.brokers,
      GATEWAY_KAFKA_NAMESPACE: `setting-${process.pid}-${name}.`,
      ...settings,
    };
    const dataDir = path.join(root, name);
    const daemon = async (role, roleNodeArgs) =>
      startDaemon({
        name: `${name}-${role}`,
        dataDir,
        port: await freePort(),
        role,
        env,
        nodeArgs: flags(nodeArgs, roleNodeArgs),
        ...(build && { root: path.resolve(build) }),
      });
    const core = await daemon('core', coreNodeArgs);
    started.push(core);
    const worker = await daemon('worker', workerNodeArgs);
    started.push(worker);
    // Each pair's companies have their own indexes at the receiver.
    const companies = await setupCompanies(core.base, receiver.url, COMPANIES, 1, pairs.length * COMPANIES);
    pairs.push({ name, text, core, worker, companies, rounds: [] });
  }
  await receiver.useCompanies(pairs.flatMap((p) => p.companies));
  for (const p of pairs) {
    await warmUp({ receiver, base: p.core.base, companies: p.companies, seconds: 5, drainMs: DRAIN_MS, what: p.name });
    await waitIdle(p.core.base, DRAIN_MS);
  }
  const brokerPid = broker.pid();
  for (let round = 0; round < rounds; round++) {
    // Each round opens with the other pair, so that neither always follows the same.
    for (const p of round % 2 === 0 ? pairs : [...pairs].reverse()) {
      await receiver.reset();
      const pids = [p.core.pid, p.worker.pid, brokerPid];
      const before = pids.map(cpuMsOf);
      const result = await fixedRate({ base: p.core.base, companies: p.companies, rate, seconds });
      const state = await waitArrivals(receiver, result.accepted, DRAIN_MS);
      if (state.missing > 0 || state.bad > 0) throw new Error(`${p.name}: ${state.missing} missing, ${state.bad} bad`);
      await waitIdle(p.core.base, DRAIN_MS);
      const us = pids.map((pid, i) => ((cpuMsOf(pid) - before[i]) * 1000) / result.accepted.length);
      p.rounds.push(us);
      console.log(
        `round ${round + 1} ${p.name}: core ${us[0].toFixed(0)} / worker ${us[1].toFixed(0)} / broker ${us[2].toFixed(0)} µs per callback (${result.accepted.length} callbacks)`,
      );
    }
  }
  const summary = pairs.map((p) =>
    [0, 1, 2, 'all'].map((i) => median(p.rounds.map((r) => (i === 'all' ? r[0] + r[1] + r[2] : r[i])))),
  );
  pairs.forEach((p, n) =>
    console.log(
      `${p.name} (${p.text || 'defaults'}): median core ${summary[n][0].toFixed(0)} / worker ${summary[n][1].toFixed(0)} / broker ${summary[n][2].toFixed(0)} / all ${summary[n][3].toFixed(0)} µs per callback`,
    ),
  );
  const ratios = summary[1].map((b, i) => (b / summary[0][i]).toFixed(2));
  console.log(`B / A: core ${ratios[0]} / worker ${ratios[1]} / broker ${ratios[2]} / all ${ratios[3]}`);
} catch (error) {
  // The daemons' logs stay for the post-mortem.
  console.error(`failed; the daemons' logs are in ${root}`);
  throw error;
} finally {
  for (const d of started.reverse()) await d.stop();
  await receiver.close();
  broker.run('release');
}
fs.rmSync(root, { recursive: true, force: true });
