// Contestants measured in turn: a ratio between two throughputs is only as good as the two
// measurements were made on the same host, and this host's speed moves by a quarter from one minute
// to the next. So every contestant of a ratio (the gateway, its floors; embedded and Kafka; an
// empty and a big store) runs side by side, idle until its turn, and the measured load alternates
// between them in short rounds, each round opened by the next contestant; each figure is pooled
// over its rounds.
import { sleep } from './lib.mjs';
import { cpuMsOf } from './proc-stats.mjs';
import { epochNow, maxRate, waitArrivals } from './load.mjs';

/**
 * A contestant: `name`, its HTTP `base`, the `companies` (callback paths and secret tokens) its load
 * goes to, the `pids` whose CPU counts as its own, and for end to end `warm` (its own warm-up,
 * which must leave every event arrived) and whether the receiver reads back its `latencies`.
 */

/**
 * Maximum-rate ingest, `rounds` rounds of `seconds` each per contestant after a warm-up of `warmSeconds`
 * each. Answers per contestant (in the order given): callbacks/s pooled over its rounds, each round's
 * callbacks/s, every callback answered 2xx, the latencies of its rounds (mean p50 and p99), and its
 * CPU and the load generator's per callback.
 */
export async function alternateIngest(contestants, { rounds, seconds, warmSeconds, checkLoad }) {
  for (const c of contestants)
    checkLoad(await maxRate({ base: c.base, companies: c.companies, seconds: warmSeconds }), `${c.name}: warm-up`);
  const tallies = contestants.map(() => ({
    total: 0,
    seconds: 0,
    rounds: [],
    accepted: [],
    p50: 0,
    p99: 0,
    cpuMs: 0,
    loadMs: 0,
  }));
  for (let round = 0; round < rounds; round += 1) {
    for (const index of turnOrder(contestants.length, round)) {
      const c = contestants[index];
      const tally = tallies[index];
      const [own, load] = [cpuOf(c.pids), cpuMsOf(process.pid)];
      const result = await maxRate({ base: c.base, companies: c.companies, seconds });
      tally.cpuMs += cpuOf(c.pids) - own;
      tally.loadMs += cpuMsOf(process.pid) - load;
      checkLoad(result, c.name);
      tally.total += result.total;
      tally.seconds += result.total / result.rps;
      tally.rounds.push(result.rps);
      for (const n of result.accepted) tally.accepted.push(n);
      tally.p50 += result.p50 / rounds;
      tally.p99 += result.p99 / rounds;
    }
  }
  return tallies.map((t) => ({
    rps: t.total / t.seconds,
    rounds: t.rounds,
    accepted: t.accepted,
    p50: t.p50,
    p99: t.p99,
    ownUs: (t.cpuMs * 1000) / t.total,
    loadUs: (t.loadMs * 1000) / t.total,
  }));
}

/**
 * End to end: per round and contestant, `seconds` of maximum-rate load and then the wait until
 * every event arrived verified and the receiver fell quiet. The receiver verifies every
 * contestant's webhooks at once (`webhookCompanies`: the secrets of all of them, each at the
 * `?c=` index its endpoints use), so a late webhook of one never fails in another's round. Answers per
 * contestant: events/s and callbacks/s pooled over its rounds (from each round's first send to its
 * last arrival), each round's events/s, the callback → webhook latencies of every callback, and its
 * CPU, the receiver's and the load generator's per callback.
 */
export async function alternateEndToEnd(
  contestants,
  { receiver, webhookCompanies, rounds, seconds, drainMs, checkLoad },
) {
  await receiver.useCompanies(webhookCompanies);
  for (const c of contestants) {
    await c.warm();
    await quiet(receiver);
  }
  const tallies = contestants.map(() => ({
    events: 0,
    callbacks: 0,
    seconds: 0,
    rounds: [],
    latencies: [],
    cpuMs: 0,
    receiverMs: 0,
    loadMs: 0,
  }));
  for (let round = 0; round < rounds; round += 1) {
    for (const index of turnOrder(contestants.length, round)) {
      const c = contestants[index];
      const tally = tallies[index];
      await receiver.reset();
      const [own, received, load] = [cpuOf(c.pids), cpuMsOf(receiver.pid), cpuMsOf(process.pid)];
      const start = epochNow();
      const result = await maxRate({ base: c.base, companies: c.companies, seconds });
      checkLoad(result, c.name);
      const state = await waitArrivals(receiver, result.accepted, drainMs);
      if (state.bad > 0) throw new Error(`${c.name}: ${state.bad} webhooks failed signature verification`);
      if (state.missing > 0)
        throw new Error(
          `${c.name}: ${state.missing} of ${result.accepted.length} events never arrived within ${drainMs / 1000}s`,
        );
      tally.cpuMs += cpuOf(c.pids) - own;
      tally.receiverMs += cpuMsOf(receiver.pid) - received;
      tally.loadMs += cpuMsOf(process.pid) - load;
      const roundSeconds = (state.lastArrival - start) / 1000;
      tally.events += state.ids;
      tally.callbacks += result.accepted.length;
      tally.seconds += roundSeconds;
      tally.rounds.push(state.ids / roundSeconds);
      // A loop, not push(...list): a round of a fast host has more callbacks than the stack takes arguments.
      if (c.latencies) for (const latency of await receiver.latencies(result.accepted)) tally.latencies.push(latency);
      await quiet(receiver);
    }
  }
  return tallies.map((t) => ({
    eventsPerSecond: t.events / t.seconds,
    callbacksPerSecond: t.callbacks / t.seconds,
    rounds: t.rounds,
    latencies: t.latencies.sort((a, b) => a - b),
    ownUs: (t.cpuMs * 1000) / t.callbacks,
    receiverUs: (t.receiverMs * 1000) / t.callbacks,
    loadUs: (t.loadMs * 1000) / t.callbacks,
  }));
}

/**
 * Waits until no webhook arrived for 300 ms: the events of a round that follow its last message
 * event (a conversation's update after its message) land before the next round counts.
 */
async function quiet(receiver) {
  for (let last = -1, calm = 0; calm < 3;) {
    const { hooks } = await receiver.status();
    calm = hooks === last ? calm + 1 : 0;
    last = hooks;
    await sleep(100);
  }
}

/** The contestants' order in a round: each round opens with the next one, so none always follows the same. */
function turnOrder(count, round) {
  return Array.from({ length: count }, (_, i) => (round + i) % count);
}

function cpuOf(pids) {
  return pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
}
