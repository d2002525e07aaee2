// The fault suite of Kafka mode: a core and two workers as separate processes (the built
// bin/gateway.js) on a broker of their own (private ports), under a steady load of provider
// callbacks, while the suite kills a worker, stops the broker and starts it again on the same data,
// kills the core and freezes a worker for longer than the session timeout, each several times.
// After each fault it prints how long the pipeline took to settle, stops the load and checks that
// nothing was lost (test/faults/invariants.ts). This file is the short form, run by `npm test`;
// `npm run faults` runs the long form (GATEWAY_FAULTS=long: more repetitions, 35 s outages, the
// default session timeout). It needs the build (bin/gateway.js runs dist/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallbackLoad } from './callback-load.js';
import { FaultCluster } from './fault-cluster.js';
import { assertQuiet, OffsetWatcher } from './invariants.js';

const LONG = process.env.GATEWAY_FAULTS === 'long';
const PLAN = LONG
  ? {
      sessionTimeout: '10s',
      sessionMs: 10_000,
      perSecond: 20,
      workerKills: 3,
      outagesMs: [10_000, 35_000, 10_000, 35_000],
      coreKills: 3,
      freezes: 3,
    }
  : {
      sessionTimeout: '6s',
      sessionMs: 6_000,
      perSecond: 15,
      workerKills: 2,
      outagesMs: [10_000, 10_000],
      coreKills: 2,
      freezes: 2,
    };
/** A ceiling for a settle, not a measurement: the suite prints the real times. */
const SETTLE_TIMEOUT_MS = 120_000;
/** The log line of a worker whose dispatcher holds every partition of gateway.events (the other one's included). */
const HOLDS_ALL_EVENTS = '"stream":"gateway.events","group":"gateway-dispatcher","partitions":[0,1,2,3,4,5]';

let cluster: FaultCluster;
let load: CallbackLoad;
let offsets: OffsetWatcher;
const results: string[] = [];

beforeAll(async () => {
  cluster = await FaultCluster.start({ companies: 6, sessionTimeout: PLAN.sessionTimeout, heartbeatInterval: '1s' });
  offsets = new OffsetWatcher(cluster.broker.brokers);
  offsets.start();
  load = new CallbackLoad(cluster, PLAN.perSecond);
}, 300_000);

afterAll(async () => {
  await load?.stop();
  await offsets?.stop();
  console.log(
    `Kafka fault suite (${LONG ? 'long' : 'short'} form, session timeout ${PLAN.sessionTimeout}, heartbeat 1s, ${PLAN.perSecond} callbacks/s):\n${results.join('\n')}`,
  );
  await cluster?.close();
}, 180_000);

/** Runs one fault under load, then stops the load and checks everything; prints and keeps the line. */
async function underLoad(name: string, fault: () => Promise<string>): Promise<void> {
  load.start();
  await load.settled(Date.now(), SETTLE_TIMEOUT_MS);
  let timings: string;
  try {
    timings = await fault();
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}\n${cluster.outputs()}`, { cause: error });
  }
  await load.stop();
  const quiet = await assertQuiet(cluster, load, offsets, SETTLE_TIMEOUT_MS);
  // Every process's clients work again; how many each replaced since it started.
  const clients = await cluster.kafkaClients();
  expect(clients.map((c) => [c.role, c.recovering])).toEqual(clients.map((c) => [c.role, []]));
  const recreated = clients.map((c) => `${c.role} ${c.recreated.producer}/${c.recreated.consumer}`).join(', ');
  const line = `${name}: ${timings}; then ${quiet.accepted} callbacks accepted in all, ${quiet.events} events, ${quiet.webhooks} webhooks (${quiet.duplicates} so far sent twice, under the same webhook-id); committed offsets read ${quiet.offsetReads.ok} times (${quiet.offsetReads.failed} reads failed); producers/consumers recreated: ${recreated}`;
  results.push(line);
  console.log(line);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

describe(`Kafka mode under faults (${LONG ? 'long' : 'short'} form)`, () => {
  it('a worker killed (SIGKILL): the other takes its partitions within the session timeout', async () => {
    for (let rep = 1; rep <= PLAN.workerKills; rep += 1) {
      await underLoad(`worker SIGKILL #${rep}`, async () => {
        const victim = rep % 2;
        const survivor = cluster.workers[1 - victim]!;
        const mark = survivor.output().length;
        const killedAt = Date.now();
        await cluster.workers[victim]!.kill();
        await survivor.waitFor(HOLDS_ALL_EVENTS, SETTLE_TIMEOUT_MS, mark);
        const failover = Date.now() - killedAt;
        const settle = await load.settled(killedAt, SETTLE_TIMEOUT_MS);
        expect(failover).toBeLessThan(PLAN.sessionMs + 5_000);
        await cluster.startWorker(victim);
        const rejoined = Date.now();
        const resettle = await load.settled(rejoined, SETTLE_TIMEOUT_MS);
        return `partitions moved ${seconds(failover)} after the kill, settled ${seconds(settle)} after it; worker restarted, settled ${seconds(resettle)} after its start`;
      });
    }
  }, 600_000);

  it('the broker stopped and started again on the same data: the backlog drains as soon as it is back', async () => {
    for (const [index, outageMs] of PLAN.outagesMs.entries()) {
      await underLoad(`broker down ${seconds(outageMs)} #${index + 1}`, async () => {
        await cluster.broker.stop();
        const stoppedAt = Date.now();
        await new Promise((resolve) => setTimeout(resolve, outageMs));
        await cluster.broker.start();
        const backAt = Date.now();
        const settle = await load.settled(backAt, SETTLE_TIMEOUT_MS);
        return `broker away ${seconds(backAt - stoppedAt)} (start included), settled ${seconds(settle)} after it answered again`;
      });
    }
  }, 1_200_000);

  it('the core killed (SIGKILL) and started again on its store', async () => {
    for (let rep = 1; rep <= PLAN.coreKills; rep += 1) {
      await underLoad(`core SIGKILL #${rep}`, async () => {
        const killedAt = Date.now();
        await cluster.core.kill();
        await cluster.startCore();
        const upAt = Date.now();
        const settle = await load.settled(killedAt, SETTLE_TIMEOUT_MS);
        return `core listening again ${seconds(upAt - killedAt)} after the kill, settled ${seconds(settle)} after the kill`;
      });
    }
  }, 600_000);

  it('a worker frozen (SIGSTOP) longer than the session timeout: its partitions move, and it rejoins when thawed', async () => {
    for (let rep = 1; rep <= PLAN.freezes; rep += 1) {
      await underLoad(`worker SIGSTOP #${rep}`, async () => {
        const victim = rep % 2;
        const frozen = cluster.workers[victim]!;
        const survivor = cluster.workers[1 - victim]!;
        const mark = survivor.output().length;
        const frozenAt = Date.now();
        frozen.freeze();
        try {
          await survivor.waitFor(HOLDS_ALL_EVENTS, SETTLE_TIMEOUT_MS, mark);
          const failover = Date.now() - frozenAt;
          const settle = await load.settled(frozenAt, SETTLE_TIMEOUT_MS);
          expect(failover).toBeLessThan(PLAN.sessionMs + 5_000);
          // Frozen well past its session timeout whatever the failover took.
          await new Promise((resolve) =>
            setTimeout(resolve, Math.max(0, frozenAt + PLAN.sessionMs + 2_000 - Date.now())),
          );
          const thawMark = frozen.output().length;
          frozen.thaw();
          const thawedAt = Date.now();
          await frozen.waitFor('"stream":"gateway.events","group":"gateway-dispatcher"', SETTLE_TIMEOUT_MS, thawMark);
          const resettle = await load.settled(thawedAt, SETTLE_TIMEOUT_MS);
          return `frozen ${seconds(thawedAt - frozenAt)}: partitions moved ${seconds(failover)} after the freeze, settled ${seconds(settle)} after it; thawed, rejoined and settled ${seconds(resettle)} after the thaw`;
        } finally {
          frozen.thaw();
        }
      });
    }
  }, 600_000);
});
