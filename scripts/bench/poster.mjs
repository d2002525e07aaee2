#!/usr/bin/env node
// The webhook poster thread alone: what signing and sending an attempt costs the thread that does
// it, without the rest of the daemon. The daemon's poster (ThreadedPoster of the build, one thread)
// and the complete deliver floor's sender thread (floor-poster-thread.mjs) each send the same
// attempts in turn: 32 endpoints of the bench's receiver (its own process, verifying every
// signature), each endpoint's attempts in order, at most 256 in flight, handed over in batches as a
// dispatcher does. A signature the receiver refuses fails the run.
// Prints attempts/s and the CPU per attempt of the sending thread (from /proc), and of the caller.
//
//   node scripts/bench/poster.mjs [attempts=60000] [rounds=3]
//
// Needs a build (npm run build). BENCHMARKS.md, "Where the time goes".
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { ThreadedPoster } from '../../dist/src/dispatch/webhook-poster.js';
import { byTid } from './proc-stats.mjs';
import { startReceiver } from './sinks.mjs';

const [attemptsText = '60000', roundsText = '3'] = process.argv.slice(2);
const ATTEMPTS = Number(attemptsText);
const ENDPOINTS = 32;
const IN_FLIGHT = 256;
const BATCH = 24;

const receiver = await startReceiver();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-poster-'));
const secrets = Array.from({ length: ENDPOINTS }, () => `whsec_${crypto.randomBytes(32).toString('base64')}`);
const secretsFile = path.join(dir, 'secrets.json');
fs.writeFileSync(secretsFile, JSON.stringify(secrets));
await receiver.useCompanies(secrets.map((webhookSecret) => ({ webhookSecret })));
// A message.create-sized event body (about 520 bytes), as the bench's load makes.
const body = JSON.stringify({ id: 'evt_0', event: 'create', type: 'message', created_at: new Date().toISOString(), object: { id: 1, message: 'b:'.padEnd(300, 'x'), contact: { id: 2, name: 'Sender' }, conversation: { id: 3, replied_state: 'unreplied' } } });

try {
  for (let round = 1; round <= Number(roundsText); round += 1) {
    report('daemon poster', await measure(daemonSender()));
    report('floor sender ', await measure(floorSender()));
  }
} finally {
  await receiver.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The daemon's poster with one thread: `send(i)` answers when attempt i was answered. */
function daemonSender() {
  const poster = new ThreadedPoster({ threads: 1, data: { allowHosts: ['127.0.0.1'] }, logger: pino({ level: 'silent' }) });
  return {
    send: (i) => {
      const c = i % ENDPOINTS;
      return poster.post({ url: `${receiver.url}?c=${c}`, id: `evt_${i}`, body, secrets: [secrets[c]], timeoutMs: 15_000, order: `gateway.events ${c}:${c}` });
    },
    close: () => poster.close(),
  };
}

/** The floor's sender thread: each turn's attempts in one message, its answers by event id. */
function floorSender() {
  const thread = new Worker(new URL('./floor-poster-thread.mjs', import.meta.url), { workerData: { receiverUrl: receiver.url, secretsFile } });
  const waiting = new Map();
  thread.on('message', (answers) => {
    for (const [id] of answers) {
      waiting.get(id)();
      waiting.delete(id);
    }
  });
  let outgoing = [];
  const flush = () => {
    thread.postMessage(outgoing);
    outgoing = [];
  };
  return {
    send: (i) =>
      new Promise((resolve) => {
        const id = `evt_${i}`;
        waiting.set(id, resolve);
        if (outgoing.push([id, body, (i % ENDPOINTS) + 1, i % ENDPOINTS, Date.now()]) === 1) process.nextTick(flush);
      }),
    close: () => thread.terminate(),
  };
}

/** Sends ATTEMPTS attempts, at most IN_FLIGHT at once, BATCH handed over per turn; CPU by thread. */
async function measure(sender) {
  // Warm-up: the thread started, its connections open, its code compiled.
  await receiver.reset();
  await Promise.all(Array.from({ length: 2_000 }, (_, i) => sender.send(i)));
  const before = byTid(process.pid);
  const started = performance.now();
  let next = 0;
  let done = 0;
  await new Promise((resolve) => {
    const more = () => {
      for (let k = 0; k < BATCH && next < ATTEMPTS && next - done < IN_FLIGHT; k += 1) {
        sender.send(next++).then(() => {
          done += 1;
          if (done === ATTEMPTS) resolve();
          else if (next - done <= IN_FLIGHT - BATCH) setImmediate(more);
        });
      }
    };
    more();
  });
  const seconds = (performance.now() - started) / 1000;
  const after = byTid(process.pid);
  await sender.close();
  const { bad, hooks } = await receiver.status();
  if (bad > 0 || hooks !== 2_000 + ATTEMPTS) throw new Error(`the receiver verified ${hooks - bad} of ${2_000 + ATTEMPTS} attempts (${bad} bad signatures)`);
  const spent = [...after].map(([tid, ms]) => [tid, ms - (before.get(tid) ?? 0)]).filter(([, ms]) => ms > 0);
  return { rate: ATTEMPTS / seconds, spent };
}

function report(name, { rate, spent }) {
  const us = (ms) => ((ms * 1000) / ATTEMPTS).toFixed(1);
  const main = spent.find(([tid]) => tid === process.pid)?.[1] ?? 0;
  // The sending thread: the busiest thread other than the event loop.
  const [, sending] = spent.filter(([tid]) => tid !== process.pid).sort((a, b) => b[1] - a[1])[0] ?? [0, 0];
  const rest = spent.reduce((sum, [, ms]) => sum + ms, 0) - main - sending;
  console.log(`${name} ${rate.toFixed(0).padStart(6)} attempts/s; CPU per attempt: sending thread ${us(sending)} µs, caller's event loop ${us(main)} µs, other threads ${us(rest)} µs`);
}
