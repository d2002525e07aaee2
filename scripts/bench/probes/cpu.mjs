#!/usr/bin/env node
// CPU cost per unit of work, read from /proc: what the daemon's threads spent per callback (end to
// end, deliveries on) or per delivery (bulk replay). Steadier than throughput on a shared machine,
// so it is the figure to compare before and after a change (BENCHMARKS.md). Linux only; needs a build.
//
//   node scripts/bench/probes/cpu.mjs e2e [seconds=8]       max-rate signed callbacks, 32 companies, deliveries on
//                                                     (the mode when none is given)
//   node scripts/bench/probes/cpu.mjs ingest [seconds=8]    the same callbacks without webhook endpoints (bench scenario 1):
//                                                     the ingest path alone, until the outbox relay has caught up
//   node scripts/bench/probes/cpu.mjs ingest-fixed [seconds=20]  those callbacks at 1,000/s: the same arrivals whatever the
//                                                     code's speed, so group commits of the same sizes (at max rate
//                                                     a slower run commits fewer callbacks at a time)
//   node scripts/bench/probes/cpu.mjs replay [count=20000]   failed deliveries over 32 endpoints, replayed in bulk
//   node scripts/bench/probes/cpu.mjs fixed [seconds=30]     1,000 callbacks/s: CPU per callback, and callback → webhook
//                                                     p50/p99/max per second of the run (where a tail comes from)
//   node scripts/bench/probes/cpu.mjs bare [seconds=8]       the bare-Koa baseline at max rate: its CPU per request and
//                                                     the load generator's (the budget the ratios leave the daemon)
//   node scripts/bench/probes/cpu.mjs floor [seconds=8]     bare Koa, then each floor handler: floor-koa.mjs insert (one insert)
//                                                     and design (the deduplicated message, its conversation and one
//                                                     event row), floor-complete.mjs ingest (the whole job, flat),
//                                                     each after a bare-Koa run of its own, twice
//   node scripts/bench/probes/cpu.mjs floor-thread [seconds=8] floor-complete.mjs ingest, then ingest-threaded (its store on a
//                                                     thread of its own), in turn, three rounds
//   node scripts/bench/probes/cpu.mjs floor-e2e [seconds=8] bare Koa, then floor-koa.mjs deliver (the design floor with its events
//                                                     POSTed signed to the verifying receiver) and floor-complete.mjs
//                                                     deliver (the whole job with its attempts recorded, its webhooks
//                                                     sent from a thread of its own), twice
//   node scripts/bench/probes/cpu.mjs floor-e2e-inline [seconds=8] the same, with floor-complete.mjs deliver-inline (its
//                                                     webhooks sent from its event loop) after each complete one
//   node scripts/bench/probes/cpu.mjs kafka [seconds=8]      e2e in Kafka mode (core + one worker, the local broker of
//                                                     scripts/kafka/kafka.sh): CPU per callback of each process
//
// BENCH_WARM_FIXED=<seconds> (fixed): the fixed-rate warm-up before the measured phase (default 3).
// BENCH_SETTLE_MS=<ms> (fixed): a pause after the warm-ups, before the measured phase.
// BENCH_RATE=<callbacks/s> (fixed): the fixed rate (default 1000); a lower one that a busy machine
// still keeps gives two builds the same group-commit sizes.
// BENCH_BROKEN=1 (fixed): from the warm-up on, company 0's endpoint never answers and company 1's
// answers 500, as in bench scenario 7; the figures are the other companies' events. Alternated
// with runs without it, it shows what the broken endpoints cost the daemon, thread by thread.
// BENCH_CPU_PROF=<dir> also writes the daemon's .cpuprofile files (one per thread) under <dir>, and
// in `floor`, `floor-e2e` and `floor-e2e-inline` modes each floor handler's.
// BENCH_ROOT=<checkout> (ingest, ingest-fixed, e2e, kafka): run that checkout's build of the daemon
// instead of this one's, so that one probe measures two builds (a worktree of an older commit, built
// there).
// BENCH_TRACING=protobuf|json (e2e, fixed): the daemon traces at 100 % sampling to a local OTLP/HTTP
// receiver (scripts/bench/suite/otlp-sink.mjs) in that encoding. CPU is read at the last arrival, as
// without tracing (at most the batch processor's queue, 2,048 spans, is exported after that); the
// run then waits until no more spans come and prints how many came per callback.
// BENCH_KEEP=1 keeps the data dir with the daemons' logs (its path is printed at the end).
// The suite's variables for the processes it starts apply too (BENCHMARKS.md): BENCH_NODE_ARGS,
// BENCH_GATEWAY_<KEY>, BENCH_LOG_LEVEL (the daemons), BENCH_FLOOR_NODE_ARGS (bare Koa and the floors).
//
// This file reads the mode and its argument and sets up what every mode runs with (the data dir, the
// verifying webhook receiver, the OTLP sink when tracing). The modes are in cpu/, by what they
// measure: ingest.mjs (ingest, ingest-fixed), e2e.mjs (e2e, fixed, replay), kafka.mjs, floors.mjs
// (bare and the floor modes); cpu/shared.mjs holds what several of them use.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startOtlpSink, startReceiver } from '../suite/sinks.mjs';
import { e2e, fixed, replay } from './cpu/e2e.mjs';
import { bareKoa, deliverFloors, deliverFloorsInline, ingestFloors, storeThread } from './cpu/floors.mjs';
import { ingest, ingestFixed } from './cpu/ingest.mjs';
import { kafka } from './cpu/kafka.mjs';

/**
 * Each mode's function, called with the mode's argument (`amount`, a string, or undefined for its
 * default), the data dir, the receiver, the OTLP sink (or null) and BENCH_CPU_PROF and BENCH_ROOT resolved.
 */
const MODES = new Map([
  ['e2e', e2e],
  ['ingest', ingest],
  ['ingest-fixed', ingestFixed],
  ['fixed', fixed],
  ['replay', replay],
  ['kafka', kafka],
  ['bare', bareKoa],
  ['floor', ingestFloors],
  ['floor-thread', storeThread],
  ['floor-e2e', deliverFloors],
  ['floor-e2e-inline', deliverFloorsInline],
]);

const [mode = 'e2e', amount] = process.argv.slice(2);
const run = MODES.get(mode);
if (!run) {
  const names = [...MODES.keys()];
  throw new Error(`unknown mode ${mode}: ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-cpu-'));

const receiver = await startReceiver();
const tracing = process.env.BENCH_TRACING ? await startOtlpSink(`http/${process.env.BENCH_TRACING}`) : null;
try {
  await run({
    amount,
    dir,
    receiver,
    tracing,
    cpuProf: process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : null,
    root: process.env.BENCH_ROOT ? path.resolve(process.env.BENCH_ROOT) : undefined,
  });
} finally {
  await receiver.close();
  await tracing?.close();
  if (process.env.BENCH_KEEP) console.log(`kept ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}
