// The fault suite of a sharded cluster: cores of several shards, two fronts side by side and two
// workers, each a process of the built bin/gateway.js, on a broker of their own (private ports:
// the suite reads the broker's committed offsets and lag, which no other run may touch), under a
// steady load of provider callbacks to companies of every shard, sent through the fronts in turn
// and retried as a provider would (after Retry-After, through the other front). The suite kills a
// shard's core (SIGKILL) and starts it again on its store, kills a front, and kills a worker. It
// asserts that the dead shard's callbacks met 503 with Retry-After while the other shards' met no
// refusal at all (and prints their p99 before and during the outage), that the fronts are
// stateless (the other front carries the load), and after each fault that nothing accepted was
// lost and duplicates share their webhook-id (test/faults/invariants.ts). This file's short form
// runs in `npm test`; `npm run faults` runs the long form (GATEWAY_FAULTS=long: three shards, more
// repetitions, longer outages). It needs the build (bin/gateway.js runs dist/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/wait.js';
import { CallbackLoad, type CallbackAttempt } from './callback-load.js';
import { assertQuiet, OffsetWatcher } from './invariants.js';
import { DISPATCHER_JOINED, occurrences, ShardFaultCluster } from './shard-cluster.js';

const LONG = process.env.GATEWAY_FAULTS === 'long';
const PLAN = LONG
  ? { shards: 3, sessionTimeout: '10s', sessionMs: 10_000, perSecond: 20, outageMs: 12_000, baseline: 200, reps: 3 }
  : { shards: 2, sessionTimeout: '6s', sessionMs: 6_000, perSecond: 16, outageMs: 4_000, baseline: 80, reps: 1 };
/** A ceiling for a settle, not a measurement: the suite prints the real times. */
const SETTLE_TIMEOUT_MS = 120_000;
/** A worker's dispatcher holding every partition of a shard's gateway.events: after a kill, one line per shard. */
const HOLDS_ALL_EVENTS = `${DISPATCHER_JOINED},"partitions":[0,1,2,3,4,5]`;

let cluster: ShardFaultCluster;
let load: CallbackLoad;
let offsets: OffsetWatcher;
const results: string[] = [];

beforeAll(async () => {
  cluster = await ShardFaultCluster.start({
    shards: PLAN.shards,
    fronts: 2,
    companiesPerShard: 2,
    sessionTimeout: PLAN.sessionTimeout,
    heartbeatInterval: '1s',
  });
  offsets = new OffsetWatcher(cluster.broker.brokers, cluster.namespaces);
  offsets.start();
  load = new CallbackLoad(cluster, PLAN.perSecond, { providerRetries: true });
}, 300_000);

afterAll(async () => {
  await load?.stop();
  await offsets?.stop();
  console.log(
    `Shard fault suite (${LONG ? 'long' : 'short'} form, ${PLAN.shards} shards, 2 fronts, 2 workers, ${PLAN.perSecond} callbacks/s):\n${results.join('\n')}`,
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
  // Every callback posted was answered 200 in the end, each once: the retries of the refused ones landed.
  expect(load.abandoned, 'callbacks whose retries gave up').toEqual([]);
  expect(new Set(load.accepted.map((a) => a.n)).size).toBe(load.posted);
  expect(load.accepted.length).toBe(load.posted);
  const quiet = await assertQuiet(cluster, load, offsets, SETTLE_TIMEOUT_MS);
  const down = cluster.processes().filter((p) => p.child.exitCode !== null || p.child.signalCode !== null);
  expect(down.map((p) => `${p.role} ${p.child.pid}`)).toEqual([]);
  const line = `${name}: ${timings}; then ${quiet.accepted} callbacks accepted in all (${load.refused} refused answers so far), ${quiet.events} events, ${quiet.webhooks} webhooks (${quiet.duplicates} so far sent twice, under the same webhook-id); committed offsets read ${quiet.offsetReads.ok} times (${quiet.offsetReads.failed} failed)`;
  results.push(line);
  console.log(line);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const tries = (from: number, to: number, which: (a: CallbackAttempt) => boolean) =>
  load.attempts.filter((a) => a.startedAt >= from && a.startedAt < to && which(a));
/** The slowest answer of the fastest 99 %: the answer times' p99 (nearest rank), with their count. */
function p99(attempts: CallbackAttempt[]): string {
  const ms = attempts.map((a) => a.ms).sort((x, y) => x - y);
  return `${ms[Math.max(0, Math.ceil(ms.length * 0.99) - 1)] ?? NaN} ms (${ms.length} answers)`;
}
const statusesOf = (attempts: CallbackAttempt[]) =>
  attempts.map((a) => `${a.status}${a.retryAfter === null ? '' : ` retry-after ${a.retryAfter}`}`);

describe(`a sharded cluster under faults (${LONG ? 'long' : 'short'} form)`, () => {
  it("a shard's core killed (SIGKILL) and started again on its store: its callbacks meet 503 with Retry-After and land after the restart; the other shards' never fail", async () => {
    for (let rep = 1; rep <= PLAN.reps; rep += 1) {
      const victim = rep % PLAN.shards;
      const ofVictim = (a: CallbackAttempt) => cluster.shardOf(a.channelId) === victim;
      const ofOthers = (a: CallbackAttempt) => !ofVictim(a);
      await underLoad(`shard ${victim} core SIGKILL #${rep}`, async () => {
        const loadFrom = Date.now();
        await eventually(
          `${PLAN.baseline} answers to the other shards' callbacks before the kill`,
          () => tries(loadFrom, Infinity, ofOthers).length >= PLAN.baseline,
          60_000,
        );
        const killedAt = Date.now();
        await cluster.cores[victim]!.kill();
        // Tries started from here until the core starts again cannot reach it (earlier ones may have).
        const goneAt = Date.now();
        // The outage lasts outageMs, and at least until the fronts refused three of the shard's callbacks.
        await new Promise((resolve) => setTimeout(resolve, PLAN.outageMs));
        await eventually(
          `three of shard ${victim}'s callbacks answered 503 by the fronts`,
          () => tries(killedAt, Infinity, ofVictim).filter((a) => a.status === 503).length >= 3,
          30_000,
        );
        const restartAt = Date.now();
        await cluster.startCore(victim);
        const upAt = Date.now();
        await eventually(
          `a callback of shard ${victim} accepted through a front again`,
          () => tries(upAt, Infinity, ofVictim).some((a) => a.status === 200),
          30_000,
        );
        const backAt = Math.min(
          ...tries(goneAt, Infinity, ofVictim)
            .filter((a) => a.status === 200)
            .map((a) => a.startedAt),
        );
        const settle = await load.settled(killedAt, SETTLE_TIMEOUT_MS);

        const refused = tries(goneAt, backAt, ofVictim);
        expect(refused.length).toBeGreaterThan(0);
        expect(statusesOf(refused.filter((a) => a.status !== 503 || !((a.retryAfter ?? 0) > 0)))).toEqual([]);
        const others = tries(loadFrom, Infinity, ofOthers);
        expect(statusesOf(others.filter((a) => a.status !== 200)), "the other shards' refused callbacks").toEqual([]);
        return `down ${seconds(restartAt - killedAt)}, core listening again ${seconds(upAt - restartAt)} after its start, its shard served through the fronts again ${seconds(backAt - killedAt)} after the kill, settled ${seconds(settle)} after the kill; its callbacks met ${refused.length} answers 503 with Retry-After meanwhile; the other shards' callbacks: ${others.length} answers, none refused, p99 ${p99(tries(loadFrom, killedAt, ofOthers))} before the kill, ${p99(tries(killedAt, restartAt, ofOthers))} while the shard was down and ${p99(tries(restartAt, backAt, ofOthers))} while its core started`;
      });
    }
  }, 900_000);

  it('a front killed (SIGKILL): the other front carries every callback, and the front starts again', async () => {
    for (let rep = 1; rep <= PLAN.reps; rep += 1) {
      const victim = rep % 2;
      await underLoad(`front ${victim} SIGKILL #${rep}`, async () => {
        const killedAt = Date.now();
        await cluster.fronts[victim]!.kill();
        // Tries started from here until the front starts again go unanswered (earlier ones may not).
        const goneAt = Date.now();
        await new Promise((resolve) => setTimeout(resolve, PLAN.outageMs));
        await eventually(
          'three callbacks unanswered by the dead front',
          () => tries(killedAt, Infinity, (a) => a.entry === victim && a.status === 0).length >= 3,
          30_000,
        );
        const restartAt = Date.now();
        await cluster.startFront(victim);
        const upAt = Date.now();
        await eventually(
          `a callback accepted through front ${victim} again`,
          () => tries(upAt, Infinity, (a) => a.entry === victim && a.status === 200).length > 0,
          30_000,
        );
        const settle = await load.settled(killedAt, SETTLE_TIMEOUT_MS);
        const unanswered = tries(goneAt, restartAt, (a) => a.entry === victim);
        expect(statusesOf(unanswered.filter((a) => a.status !== 0))).toEqual([]);
        const carried = tries(killedAt, Infinity, (a) => a.entry !== victim);
        expect(statusesOf(carried.filter((a) => a.status !== 200)), "the other front's refused callbacks").toEqual([]);
        return `front listening again ${seconds(upAt - killedAt)} after the kill, settled ${seconds(settle)} after it; ${unanswered.length} tries met the dead front, the other front answered ${carried.length} tries, all 200, p99 ${p99(carried)}`;
      });
    }
  }, 900_000);

  it("a worker killed (SIGKILL): the other takes every shard's partitions within the session timeout", async () => {
    for (let rep = 1; rep <= PLAN.reps; rep += 1) {
      const victim = rep % 2;
      await underLoad(`worker ${victim} SIGKILL #${rep}`, async () => {
        const survivor = cluster.workers[1 - victim]!;
        const mark = survivor.output().length;
        const killedAt = Date.now();
        await cluster.workers[victim]!.kill();
        await eventually(
          "the surviving worker holds every partition of every shard's gateway.events",
          () => occurrences(survivor.output(), HOLDS_ALL_EVENTS, mark) >= PLAN.shards,
          SETTLE_TIMEOUT_MS,
        );
        const failover = Date.now() - killedAt;
        const settle = await load.settled(killedAt, SETTLE_TIMEOUT_MS);
        expect(failover).toBeLessThan(PLAN.sessionMs + 5_000);
        await cluster.startWorker(victim);
        const rejoined = Date.now();
        const resettle = await load.settled(rejoined, SETTLE_TIMEOUT_MS);
        const refused = tries(killedAt, Infinity, (a) => a.status !== 200);
        expect(statusesOf(refused), 'callbacks refused while a worker was down').toEqual([]);
        return `partitions of every shard moved ${seconds(failover)} after the kill, settled ${seconds(settle)} after it; worker restarted, settled ${seconds(resettle)} after its start`;
      });
    }
  }, 900_000);
});
