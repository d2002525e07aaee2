// The floors of the benchmark (BENCHMARKS.md, "The floors"): plain handlers under the gateway's
// load, measured beside bare Koa in the same run. Minimal (floor-koa.mjs design: dedup, conversation
// upsert, one event row; deliver: its events POSTed signed) and complete (floor-complete.mjs:
// everything the contract and the design require of a callback, flat). bench.mjs prints the
// gateway's figures as a ratio to each, so the cost of the required work and the cost of the
// gateway's structure both show; cpu.mjs floor and floor-e2e measure them alone.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { floorSecretToken } from './floor-tokens.mjs';
import { cpuMsOf, epochNow, maxRate, measureBare, startBareKoa, waitArrivals } from './lib.mjs';

/**
 * The load of the floors: `count` channels at /callbacks/chat_b/1..count (a floor's channel is its
 * path, as the gateway's load goes to `count` companies), with the complete floor's secret tokens
 * (the minimal floors and bare Koa ignore them).
 */
export function floorTargets(count) {
  return Array.from({ length: count }, (_, i) => ({ callbackPath: `/callbacks/chat_b/${i + 1}`, secretToken: floorSecretToken(i + 1) }));
}

/**
 * A deliver floor end to end (`handler`: floor-koa.mjs deliver or floor-complete.mjs deliver, whose
 * events go to `receiver`, already given the floor's secrets): a fresh store warmed up by senders of
 * its own, so that the measured load opens its conversations (an event each) as the gateway's
 * end-to-end run does; then max-rate callbacks, until every event arrived verified. Answers events/s
 * from the first send to the last arrival, and the CPU per callback of the floor, the receiver and
 * the load generator.
 */
export async function measureDeliverFloor({ receiver, handler, targets, warmSeconds, seconds, drainMs = 120_000 }) {
  const floor = await startBareKoa(null, handler);
  try {
    const warm = await maxRate({ base: floor.base, companies: targets, seconds: warmSeconds, firstSender: 900_000 });
    if ((await waitArrivals(receiver, warm.accepted, drainMs)).missing > 0) throw new Error(`${handler[0]}: warm-up events never arrived`);
    await receiver.reset();
    const [f0, r0, g0] = [cpuMsOf(floor.pid), cpuMsOf(receiver.pid), cpuMsOf(process.pid)];
    const start = epochNow();
    const result = await maxRate({ base: floor.base, companies: targets, seconds });
    const state = await waitArrivals(receiver, result.accepted, drainMs);
    if (state.missing > 0 || state.bad > 0) throw new Error(`${handler[0]}: ${state.missing} events missing, ${state.bad} bad signatures`);
    const n = result.accepted.length;
    const perCallback = (ms) => (ms * 1000) / n;
    return {
      rps: result.rps,
      n,
      events: state.hooks,
      eventsPerSecond: state.hooks / ((state.lastArrival - start) / 1000),
      handlerUs: perCallback(cpuMsOf(floor.pid) - f0),
      receiverUs: perCallback(cpuMsOf(receiver.pid) - r0),
      loadUs: perCallback(cpuMsOf(process.pid) - g0),
    };
  } finally {
    await floor.stop();
  }
}

/** `count` Standard Webhooks secrets in a file for a deliver floor; the receiver verifies with them. */
export async function floorSecrets(receiver, dir, count) {
  const secrets = Array.from({ length: count }, () => `whsec_${crypto.randomBytes(32).toString('base64')}`);
  const file = path.join(dir, 'floor-secrets.json');
  fs.writeFileSync(file, JSON.stringify(secrets));
  await receiver.useCompanies(secrets.map((webhookSecret) => ({ webhookSecret })));
  return file;
}

/**
 * Scenario 0 of bench.mjs: the minimal and complete floors, ingest (`P.floor` s at maximum rate
 * after `P.warm`) and end to end (`P.floor` s of load, until every event arrived), each a row
 * against `bare` (the bare-Koa run). Answers their results for the ratios of the later scenarios.
 */
export async function measureFloors({ bare, receiver, row, dir, companies, P, checkLoad }) {
  const targets = floorTargets(companies);
  fs.mkdirSync(dir, { recursive: true });
  const ingest = async (label, handler) => {
    const result = await measureBare({ warmSeconds: P.warm, seconds: P.floor, targets, handler });
    checkLoad(result, label);
    row('0 floors', `${label}: callbacks/s`, result.rps, { baseline: bare.rps, ratio: result.rps / bare.rps });
    row('0 floors', `${label}: CPU per callback, floor / load generator (µs)`, `${result.bareUs.toFixed(0)} / ${result.loadUs.toFixed(0)}`);
    return result;
  };
  const floors = {
    minimal: await ingest('minimal ingest floor', ['floor-koa.mjs', dir, 'design']),
    complete: await ingest('complete ingest floor', ['floor-complete.mjs', dir, String(companies), 'ingest']),
  };
  const secretsFile = await floorSecrets(receiver, dir, companies);
  const deliver = async (label, [script, ...args]) => {
    // Each on a store of its own: its measured load opens conversations as the gateway's does.
    const own = fs.mkdtempSync(path.join(dir, 'deliver-'));
    const handler = [script, own, ...args, receiver.url, secretsFile];
    const result = await measureDeliverFloor({ receiver, handler, targets, warmSeconds: P.warm, seconds: P.floor, drainMs: P.drainMs });
    row('0 floors', `${label}: events delivered/s (all verified)`, result.eventsPerSecond, { baseline: bare.rps, ratio: result.eventsPerSecond / bare.rps });
    row('0 floors', `${label}: CPU per callback, floor / receiver / load generator (µs)`, `${result.handlerUs.toFixed(0)} / ${result.receiverUs.toFixed(0)} / ${result.loadUs.toFixed(0)}`);
    return result;
  };
  floors.minimalDeliver = await deliver('minimal deliver floor', ['floor-koa.mjs', 'deliver']);
  floors.completeDeliver = await deliver('complete deliver floor', ['floor-complete.mjs', String(companies), 'deliver']);
  return floors;
}
