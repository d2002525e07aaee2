// cpu.mjs bare, floor, floor-thread, floor-e2e and floor-e2e-inline: the bare-Koa baseline and the
// floors (scripts/bench/floors/) alone under max-rate load, each next to a bare-Koa run of its own
// where it is a ratio to it: the machine's speed moves within minutes.
import fs from 'node:fs';
import path from 'node:path';
import { floorSecrets, floorTargets, measureDeliverFloor } from '../../floors/floors.mjs';
import { measureBare } from '../../suite/baseline.mjs';
import { percents } from '../../suite/proc-stats.mjs';
import { COMPANIES } from './shared.mjs';

/**
 * `bare [seconds=8]`: the baseline's side of the ratios, what a bare Koa request and the load
 * generator's request cost, so what is left of two cores for the daemon at a given fraction of the baseline.
 */
export async function bareKoa({ amount }) {
  const bare = await measureBare({ warmSeconds: 3, seconds: Number(amount ?? 8) });
  console.log(
    `bare Koa: ${bare.total} requests (${bare.rps.toFixed(0)}/s, answer p50 ${bare.p50.toFixed(1)} ms, p99 ${bare.p99.toFixed(1)} ms)`,
  );
  console.log(
    `CPU per request: bare Koa ${bare.bareUs.toFixed(0)} µs, load generator ${bare.loadUs.toFixed(0)} µs; machine CPU busy / idle / stolen ${percents(bare.machine)} %`,
  );
}

/**
 * `floor [seconds=8]`: floor-koa.mjs insert and design, then floor-complete.mjs ingest, each after a
 * bare-Koa run of its own, twice.
 */
export async function ingestFloors({ amount, dir, cpuProf }) {
  const seconds = Number(amount ?? 8);
  // The floor's rows spread over 32 channels (its channel is the path), as the gateway's do over 32 companies.
  const targets = floorTargets(COMPANIES);
  for (let round = 1; round <= 2; round += 1) {
    for (const level of ['insert', 'design', 'complete']) {
      const bare = await measureBare({ warmSeconds: 3, seconds, targets });
      console.log(floorLine('bare Koa', bare));
      const handler =
        level === 'complete'
          ? ['floors/floor-complete.mjs', dir, String(COMPANIES), 'ingest']
          : ['floors/floor-koa.mjs', dir, level];
      const floor = await measureBare({
        warmSeconds: 3,
        seconds,
        targets,
        handler,
        cpuProf: cpuProf && path.join(cpuProf, `floor-${level}-${round}`),
      });
      console.log(floorLine(`floor ${level}`, floor, bare));
      if (cpuProf) console.log(`  its .cpuprofile covers ${floor.handled} callbacks (warm-up included)`);
    }
  }
}

/**
 * `floor-thread [seconds=8]`: the complete floor as it is (one thread) and with its store on a
 * thread of its own, in turn, three rounds.
 */
export async function storeThread({ amount, dir }) {
  const seconds = Number(amount ?? 8);
  const targets = floorTargets(COMPANIES);
  for (let round = 1; round <= 3; round += 1) {
    for (const level of ['ingest', 'ingest-threaded']) {
      const floor = await measureBare({
        warmSeconds: 3,
        seconds,
        targets,
        handler: ['floors/floor-complete.mjs', dir, String(COMPANIES), level],
      });
      console.log(floorLine(`complete ${level}`, floor));
    }
  }
}

/**
 * `floor-e2e [seconds=8]`: the floor of end to end. Bare Koa, then floor-koa.mjs deliver (the design
 * floor, and its events POSTed signed to the receiver once committed) and floor-complete.mjs deliver
 * under the same load, twice.
 */
export const deliverFloors = (probe) => deliverRounds(probe, false);

/** `floor-e2e-inline [seconds=8]`: floor-e2e, with floor-complete.mjs deliver-inline after each complete one. */
export const deliverFloorsInline = (probe) => deliverRounds(probe, true);

async function deliverRounds({ amount, dir, cpuProf, receiver }, inline) {
  const seconds = Number(amount ?? 8);
  const { file: secretsFile } = await floorSecrets(receiver, dir, COMPANIES);
  const targets = floorTargets(COMPANIES);
  for (let round = 1; round <= 2; round += 1) {
    const bare = await measureBare({ warmSeconds: 3, seconds, targets });
    console.log(floorLine('bare Koa', bare));
    const contestants = [
      ['minimal', 'floors/floor-koa.mjs', ['deliver']],
      ['complete', 'floors/floor-complete.mjs', [String(COMPANIES), 'deliver']],
    ];
    if (inline)
      contestants.push(['complete inline', 'floors/floor-complete.mjs', [String(COMPANIES), 'deliver-inline']]);
    for (const [name, script, args] of contestants) {
      // A fresh store each time, warmed up by other senders: the measured load opens its
      // conversations (an event each) as the daemon's e2e run does.
      const handler = [script, fs.mkdtempSync(path.join(dir, 'floor-e2e-')), ...args, receiver.url, secretsFile];
      const r = await measureDeliverFloor({
        receiver,
        handler,
        targets,
        warmSeconds: 3,
        seconds,
        cpuProf: cpuProf && path.join(cpuProf, `floor-e2e-${name.replace(' ', '-')}-${round}`),
      });
      console.log(
        `${`floor ${name}`.padEnd(23)} ${r.eventsPerSecond.toFixed(0).padStart(6)} events/s = ${(r.eventsPerSecond / bare.rps).toFixed(2)} of bare Koa (${r.n} callbacks, ${r.rps.toFixed(0)}/s answered, ${r.events} events); ` +
          `CPU per callback: handler ${r.handlerUs.toFixed(0)} µs, receiver ${r.receiverUs.toFixed(0)} µs, load generator ${r.loadUs.toFixed(0)} µs`,
      );
      console.log(`  handler CPU per callback by thread id: ${r.threads}`);
    }
  }
}

/** One line of `floor`, `floor-thread` and `floor-e2e`: a measureBare result, and its ratio to `bare` when given. */
function floorLine(name, r, bare) {
  return `${name.padEnd(14)} ${r.rps.toFixed(0).padStart(6)}/s${bare ? ` = ${(r.rps / bare.rps).toFixed(2)} of bare Koa` : ''}; CPU per request: handler ${r.bareUs.toFixed(0)} µs, load generator ${r.loadUs.toFixed(0)} µs; machine busy / idle / stolen ${percents(r.machine)} %`;
}
