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
 * The ingest floors (`P.floor` s at maximum rate after `P.warm`, each on a fresh store) or, with
 * `deliver`, the deliver floors (`P.floor` s of load, until every event arrived), minimal then
 * complete or, with `reverse`, complete then minimal; each a row under `label` against `bare` (the
 * bare-Koa run), its metric prefixed by `prefix`. Answers the results by kind: `minimal`,
 * `complete` (ingest), `minimalDeliver`, `completeDeliver`.
 */
export async function measureFloors({ bare, receiver, row, dir, companies, P, checkLoad, deliver = false, reverse = false, label = '0 floors', prefix = '' }) {
  const targets = floorTargets(companies);
  fs.mkdirSync(dir, { recursive: true });
  const ingest = async (name, [script, ...args]) => {
    const handler = [script, fs.mkdtempSync(path.join(dir, 'ingest-')), ...args];
    const result = await measureBare({ warmSeconds: P.warm, seconds: P.floor, targets, handler });
    checkLoad(result, name);
    row(label, `${prefix}${name}: callbacks/s`, result.rps, { baseline: bare.rps, ratio: result.rps / bare.rps });
    row(label, `${prefix}${name}: CPU per callback, floor / load generator (µs)`, `${result.bareUs.toFixed(0)} / ${result.loadUs.toFixed(0)}`);
    return result;
  };
  const secretsFile = deliver ? await floorSecrets(receiver, dir, companies) : null;
  const delivering = async (name, [script, ...args]) => {
    // Each on a store of its own: its measured load opens conversations as the gateway's does.
    const handler = [script, fs.mkdtempSync(path.join(dir, 'deliver-')), ...args, receiver.url, secretsFile];
    const result = await measureDeliverFloor({ receiver, handler, targets, warmSeconds: P.warm, seconds: P.floor, drainMs: P.drainMs });
    row(label, `${prefix}${name}: events delivered/s (all verified)`, result.eventsPerSecond, { baseline: bare.rps, ratio: result.eventsPerSecond / bare.rps });
    row(label, `${prefix}${name}: CPU per callback, floor / receiver / load generator (µs)`, `${result.handlerUs.toFixed(0)} / ${result.receiverUs.toFixed(0)} / ${result.loadUs.toFixed(0)}`);
    return result;
  };
  const runs = deliver
    ? [
        ['minimalDeliver', () => delivering('minimal deliver floor', ['floor-koa.mjs', 'deliver'])],
        ['completeDeliver', () => delivering('complete deliver floor', ['floor-complete.mjs', String(companies), 'deliver'])],
      ]
    : [
        ['minimal', () => ingest('minimal ingest floor', ['floor-koa.mjs', 'design'])],
        ['complete', () => ingest('complete ingest floor', ['floor-complete.mjs', String(companies), 'ingest'])],
      ];
  const floors = {};
  for (const [kind, measure] of reverse ? runs.reverse() : runs) floors[kind] = await measure();
  return floors;
}

/**
 * Rows (`row` of the bench's table) of a gateway figure against the `floors` of the run: its ratio
 * to each, and the targets of issue 26 where it has one (`targets`: {minimal, complete} lower
 * bounds of the ratio). With `after` (the floors measured again right after the gateway's run) a
 * floor is the mean of its runs before and after: the gateway's run sits between them, so a host
 * that sped up or slowed down over the minutes of the run moves both sides alike.
 */
export function floorRows(row, label, value, floorOf, targets, floors, after) {
  for (const kind of ['minimal', 'complete']) {
    const before = floorOf(floors, kind);
    if (before === undefined) continue;
    const again = floorOf(after, kind);
    const floor = again === undefined ? before : (before + again) / 2;
    if (again !== undefined) row(label, `  the ${kind} floor before / after it`, `${before.toFixed(0)} / ${again.toFixed(0)}`);
    const ratio = value / floor;
    const target = targets[kind];
    row(label, `  ratio to the ${kind} floor${again === undefined ? '' : ' (mean of before and after)'}`, value, { baseline: floor, ratio, ...(target === undefined ? {} : { target: `≥ ${target.toFixed(2)}`, ok: ratio >= target }) });
  }
}

/** An ingest floor's callbacks per second. */
export function ingestFloorOf(floors, kind) {
  return floors?.[kind]?.rps;
}

/** A deliver floor's events delivered per second. */
export function deliverFloorOf(floors, kind) {
  return floors?.[`${kind}Deliver`]?.eventsPerSecond;
}
