// The floors of the benchmark (BENCHMARKS.md, "The floors"): plain handlers under the gateway's
// load, measured in turn with the gateway in the same run (alternate.mjs). Minimal (floor-koa.mjs
// design: dedup, conversation upsert, one event row; deliver: its events POSTed signed) and complete
// (floor-complete.mjs: everything the contract and the design require of a callback, flat).
// bench.mjs prints the gateway's figures as a ratio to each, so the cost of the required work and
// the cost of the gateway's structure both show; cpu.mjs floor and floor-e2e measure them alone.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { floorSecretToken } from './floor-tokens.mjs';
import { byTid, cpuMsOf, perThread } from '../suite/proc-stats.mjs';
import { epochNow, maxRate, waitArrivals, warmUp } from '../suite/load.mjs';
import { startBareKoa } from '../suite/baseline.mjs';

/**
 * The load of the floors: `count` channels at /callbacks/chat_b/1..count (a floor's channel is its
 * path, as the gateway's load goes to `count` companies), with the complete floor's secret tokens
 * (the minimal floors and bare Koa ignore them).
 */
export function floorTargets(count) {
  return Array.from({ length: count }, (_, i) => ({
    callbackPath: `/callbacks/chat_b/${i + 1}`,
    secretToken: floorSecretToken(i + 1),
  }));
}

/**
 * A deliver floor end to end (`handler`: floor-koa.mjs deliver or floor-complete.mjs deliver, whose
 * events go to `receiver`, already given the floor's secrets): a fresh store warmed up by senders of
 * its own, so that the measured load opens its conversations (an event each) as the gateway's
 * end-to-end run does; then max-rate callbacks, until every event arrived verified. Answers events/s
 * from the first send to the last arrival, and the CPU per callback of the floor, the receiver and
 * the load generator.
 */
export async function measureDeliverFloor({
  receiver,
  handler,
  targets,
  warmSeconds,
  seconds,
  drainMs = 120_000,
  cpuProf = null,
}) {
  const floor = await startBareKoa(cpuProf, handler);
  try {
    // Senders of its own: the measured load then opens its conversations as the gateway's does.
    await warmUp({
      receiver,
      base: floor.base,
      companies: targets,
      seconds: warmSeconds,
      drainMs,
      what: handler[0],
      firstSender: 900_000,
    });
    await receiver.reset();
    const [f0, r0, g0, t0] = [cpuMsOf(floor.pid), cpuMsOf(receiver.pid), cpuMsOf(process.pid), byTid(floor.pid)];
    const start = epochNow();
    const result = await maxRate({ base: floor.base, companies: targets, seconds });
    const state = await waitArrivals(receiver, result.accepted, drainMs);
    if (state.missing > 0 || state.bad > 0)
      throw new Error(`${handler[0]}: ${state.missing} events missing, ${state.bad} bad signatures`);
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
      threads: perThread(floor.pid, t0, n),
    };
  } finally {
    await floor.stop();
  }
}

/** `count` Standard Webhooks secrets in a file for a deliver floor; the receiver verifies with them (`webhookCompanies`). */
export async function floorSecrets(receiver, dir, count) {
  const secrets = Array.from({ length: count }, () => `whsec_${crypto.randomBytes(32).toString('base64')}`);
  const file = path.join(dir, 'floor-secrets.json');
  fs.writeFileSync(file, JSON.stringify(secrets));
  const webhookCompanies = secrets.map((webhookSecret) => ({ webhookSecret }));
  await receiver.useCompanies(webhookCompanies);
  return { file, webhookCompanies };
}

/**
 * The ingest floors started side by side, each on a fresh store, as contestants of
 * alternate.mjs: the minimal one (`floor-koa.mjs design`) and the complete one
 * (`floor-complete.mjs ingest`). `stop` stops both.
 */
export async function startIngestFloors(dir, companies) {
  const companiesOf = floorTargets(companies);
  const floors = [
    {
      kind: 'minimal',
      name: 'minimal ingest floor',
      handler: ['floors/floor-koa.mjs', fresh(dir, 'ingest-'), 'design'],
    },
    {
      kind: 'complete',
      name: 'complete ingest floor',
      handler: ['floors/floor-complete.mjs', fresh(dir, 'ingest-'), String(companies), 'ingest'],
    },
  ];
  return started(floors, (floor, server) => ({
    kind: floor.kind,
    name: floor.name,
    base: server.base,
    pids: [server.pid],
    companies: companiesOf,
  }));
}

/**
 * The deliver floors started side by side, each on a fresh store, as contestants of alternate.mjs:
 * the minimal one (`floor-koa.mjs deliver`) and the complete one (`floor-complete.mjs deliver`),
 * POSTing their events signed to `receiver` at `?c=` 0 to `companies` - 1, verified with
 * `webhookCompanies`. Each warms up on senders of its own, so that the measured load opens its
 * conversations (an event each) as the gateway's does.
 */
export async function startDeliverFloors({ receiver, dir, companies, warmSeconds, drainMs }) {
  const companiesOf = floorTargets(companies);
  fs.mkdirSync(dir, { recursive: true });
  const { file, webhookCompanies } = await floorSecrets(receiver, dir, companies);
  const floors = [
    {
      kind: 'minimal',
      name: 'minimal deliver floor',
      handler: ['floors/floor-koa.mjs', fresh(dir, 'deliver-'), 'deliver', receiver.url, file],
    },
    {
      kind: 'complete',
      name: 'complete deliver floor',
      handler: ['floors/floor-complete.mjs', fresh(dir, 'deliver-'), String(companies), 'deliver', receiver.url, file],
    },
  ];
  const contestants = await started(floors, (floor, server) => ({
    kind: floor.kind,
    name: floor.name,
    base: server.base,
    pids: [server.pid],
    companies: companiesOf,
    // Senders of its own, as in measureDeliverFloor.
    warm: () =>
      warmUp({
        receiver,
        base: server.base,
        companies: companiesOf,
        seconds: warmSeconds,
        drainMs,
        what: floor.name,
        firstSender: 900_000,
      }),
  }));
  return { ...contestants, webhookCompanies };
}

function fresh(dir, prefix) {
  fs.mkdirSync(dir, { recursive: true });
  return fs.mkdtempSync(path.join(dir, prefix));
}

/** Starts each floor's process; answers the contestants and `stop`, which stops them all. */
async function started(floors, contestant) {
  const servers = [];
  try {
    for (const floor of floors) servers.push(await startBareKoa(null, floor.handler));
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()));
    throw error;
  }
  return {
    contestants: floors.map((floor, i) => contestant(floor, servers[i])),
    stop: () => Promise.all(servers.map((server) => server.stop())),
  };
}

/**
 * Rows (`row` of the bench's table) of a gateway figure against the floors measured beside it
 * (`floors`: minimal and complete, each with `value` and its `rounds`): the ratio to each, and the
 * targets of issue 26 where it has one (`targets`: {minimal, complete} lower bounds of the ratio).
 * Then the complete floor against the minimal one: what the work the contract requires costs, and
 * so how much of the complete floor the minimal floor's target asks of the gateway.
 */
export function floorRows(row, label, gateway, floors, targets) {
  for (const floor of floors) {
    const ratio = gateway.value / floor.value;
    const target = targets[floor.kind];
    row(label, `  ratio to the ${floor.kind} floor`, gateway.value, {
      baseline: floor.value,
      ratio,
      ...(target === undefined ? {} : { target: `≥ ${target.toFixed(2)}`, ok: ratio >= target }),
    });
    row(
      label,
      `  ratio to the ${floor.kind} floor, round by round`,
      gateway.rounds.map((g, i) => (g / floor.rounds[i]).toFixed(2)).join(' '),
    );
  }
  const minimal = floors.find((floor) => floor.kind === 'minimal');
  const complete = floors.find((floor) => floor.kind === 'complete');
  if (minimal === undefined || complete === undefined) return;
  const share = complete.value / minimal.value;
  row(label, '  complete floor against the minimal one', complete.value, { baseline: minimal.value, ratio: share });
  if (targets.minimal !== undefined)
    row(label, "  the minimal floor's target, as a ratio to the complete floor", (targets.minimal / share).toFixed(2));
}
