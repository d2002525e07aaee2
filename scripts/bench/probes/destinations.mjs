#!/usr/bin/env node
// CPU per delivered event for each destination type: one daemon, 32 companies per type whose
// endpoints are webhooks (the verifying receiver), Kafka (a topic on the test broker of
// scripts/kafka/kafka.sh), RabbitMQ (a private node) or SQS (ElasticMQ); each type's companies get
// the same signed callbacks in turn, until every event arrived verified at its sink, the order of
// the types rotated each round. It prints, per type, the daemon's CPU per delivered event (user +
// sys, all threads), events/s and the ratio to the webhooks measured in the same run (BENCHMARKS.md).
// Linux only; needs a build, rabbitmq-server, Java and Maven (a broker missing fails the run).
//
//   node scripts/bench/probes/destinations.mjs embedded [seconds=8]   the all-in-one daemon
//   node scripts/bench/probes/destinations.mjs kafka [seconds=8]      Kafka mode: core + one worker (the CPU of both)
//
// BENCH_ROUNDS=<n>: rounds over the types (default 2). BENCH_RATE=<callbacks/s>: that fixed rate
// instead of the maximum (the same arrivals for every type, so the same group-commit sizes).
// BENCH_TYPES=rabbitmq,sqs: these types only, beside webhook (always: the ratios' base).
// BENCH_WARM=<s>: each type's warm-up load (default 3 s, repeated until each of its 320 senders
// wrote once), which opens its broker connections and every conversation of the load (10 senders
// per company), so a measured callback is one message.create event.
// BENCH_KEEP=1 keeps the data dir and the daemon's log.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, freePort, setupCompanies, setupCompany, sleep, startDaemon, testBroker } from '../suite/lib.mjs';
import { epochNow, fixedRate, maxRate, waitArrivals, waitIdle } from '../suite/load.mjs';
import { cpuMsOf, percents, sampleMachine, treeCpuMs } from '../suite/proc-stats.mjs';
import { startElasticMq } from '../../brokers/elasticmq.mjs';
import { startRabbitmq } from '../../brokers/rabbitmq.mjs';
import { startBrokerSink, startReceiver } from '../suite/sinks.mjs';

const [mode = 'embedded', amount] = process.argv.slice(2);
if (mode !== 'embedded' && mode !== 'kafka') throw new Error(`unknown mode ${mode}: embedded or kafka`);
const SECONDS = Number(amount ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : null;
const WARM_SECONDS = Number(process.env.BENCH_WARM ?? 3);
const TYPES = ['webhook', ...(process.env.BENCH_TYPES ?? 'kafka,rabbitmq,sqs').split(',')].filter(
  (type, i, all) => all.indexOf(type) === i,
);
for (const type of TYPES)
  if (!['webhook', 'kafka', 'rabbitmq', 'sqs'].includes(type)) throw new Error(`unknown destination type ${type}`);
const COMPANIES = 32;
const SENDERS = COMPANIES * 10;
const DRAIN_MS = 300_000;
/** The window in which the daemons' idle CPU is read, after the warm-ups. */
const IDLE_SECONDS = 5;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-destinations-'));
const cleanups = [];
try {
  const brokers = await startBrokers();
  const daemons = await startDaemons(brokers.kafka);
  const base = daemons[0].base;
  const contestants = [];
  for (const type of TYPES) contestants.push(await contestant(type, base, brokers));
  for (const c of contestants) await warmUp(c, base);
  await idleCpu(base, daemons);
  console.log(
    `${mode}: ${TYPES.join(', ')}, ${COMPANIES} companies each, ${RATE ? `${RATE} callbacks/s` : 'maximum rate'} for ${SECONDS} s a turn, ${ROUNDS} rounds`,
  );
  const turns = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // Rotated each round, so no type is always measured first or right after the same one.
    const order = contestants.map((_, i) => contestants[(i + round) % contestants.length]);
    for (const c of order) turns.push(await measure(c, round, base, daemons));
    const ofRound = turns.filter((t) => t.round === round);
    const webhook = ofRound.find((t) => t.type === 'webhook');
    console.log(
      `round ${round + 1}, daemon CPU per event as a ratio to webhook: ${ofRound
        .map((t) => `${t.type} ${(t.daemonMs / t.events / (webhook.daemonMs / webhook.events)).toFixed(2)}`)
        .join(', ')}`,
    );
  }
  summary(turns);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(error));
  if (process.env.BENCH_KEEP) console.log(`kept ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}

/** The brokers the types need, each started or joined here; any that cannot start throws. */
async function startBrokers() {
  const brokers = {};
  if (mode === 'kafka' || TYPES.includes('kafka')) {
    const broker = testBroker();
    if (broker.run('start').status !== 0)
      throw new Error('the Kafka test broker could not be started (scripts/kafka/kafka.sh start)');
    cleanups.push(async () => broker.run('release'));
    brokers.kafka = { target: broker.brokers, pid: broker.pid() };
  }
  if (TYPES.includes('rabbitmq')) {
    const node = await startRabbitmq({ prefix: 'bench-rabbit' });
    cleanups.push(() => node.remove());
    brokers.rabbitmq = { target: node.url, pid: node.pid };
  }
  if (TYPES.includes('sqs')) {
    const server = await startElasticMq();
    cleanups.push(() => server.remove());
    brokers.sqs = { target: server.endpoint, pid: server.pid };
  }
  return brokers;
}

/** The daemon (embedded), or a core and its worker (kafka): the first one answers HTTP. */
async function startDaemons(kafka) {
  if (mode === 'embedded') {
    const d = await startDaemon({ name: 'destinations', dataDir: dir, port: await freePort() });
    cleanups.push(() => d.stop());
    return [d];
  }
  const env = { GATEWAY_KAFKA_BROKERS: kafka.target, GATEWAY_KAFKA_NAMESPACE: `dest-${process.pid}-${Date.now()}.` };
  const core = await startDaemon({
    name: 'destinations-core',
    dataDir: dir,
    port: await freePort(),
    role: 'core',
    env,
  });
  cleanups.push(() => core.stop());
  const worker = await startDaemon({ name: 'destinations-worker', dataDir: dir, role: 'worker', env });
  cleanups.push(() => worker.stop());
  return [core, worker];
}

/** One destination type: its sink, its broker and its companies, each with one endpoint of the type. */
async function contestant(type, base, brokers) {
  if (type === 'webhook') {
    const sink = await startReceiver();
    cleanups.push(() => sink.close());
    const companies = await setupCompanies(base, sink.url, COMPANIES);
    await sink.useCompanies(companies);
    return { type, sink, companies, brokerPid: null };
  }
  const sink = await startBrokerSink(type, COMPANIES, brokers[type].target);
  cleanups.push(() => sink.close());
  const companies = [];
  for (const settings of sink.settings) {
    const company = await setupCompany(base, null);
    const { webhook } = await call(base, 'POST', `/api/p2/companies/${company.companyId}/webhooks`, {
      body: { type, [type]: settings, active: true },
    });
    companies.push({ ...company, webhookSecret: webhook.secret, endpointId: webhook.id });
  }
  await sink.useCompanies(companies);
  return { type, sink, companies, brokerPid: brokers[type].pid };
}

/** Callbacks to a type's companies: at maximum rate or BENCH_RATE, from 10 senders per company. */
function load(c, base, seconds) {
  return RATE
    ? fixedRate({ base, companies: c.companies, rate: RATE, seconds, senders: SENDERS })
    : maxRate({ base, companies: c.companies, seconds, senders: SENDERS });
}

/** Warm-up load until every sender of the type's companies has written once: each conversation is open. */
async function warmUp(c, base) {
  let sent = 0;
  while (sent < SENDERS) {
    const warm = await load(c, base, WARM_SECONDS);
    const state = await waitArrivals(c.sink, warm.accepted, DRAIN_MS);
    if (state.missing > 0) throw new Error(`${c.type}: ${state.missing} warm-up events never arrived`);
    sent += warm.accepted.length;
  }
}

/**
 * One turn: the pipeline idle, the load, then the wait until the event of every accepted callback
 * arrived verified. CPU is read at that point, as cpu.mjs does.
 */
async function measure(c, round, base, daemons) {
  const idle = await waitIdle(base, DRAIN_MS);
  if (idle.left) throw new Error(`${c.type}: the pipeline did not go idle: ${idle.left.join(', ')}`);
  await c.sink.reset();
  const cpu = () => ({
    daemons: daemons.map((d) => cpuMsOf(d.pid)),
    sink: cpuMsOf(c.sink.pid),
    broker: c.brokerPid === null ? 0 : treeCpuMs(c.brokerPid),
  });
  const before = cpu();
  const machine = sampleMachine();
  const start = epochNow();
  const result = await load(c, base, SECONDS);
  const state = await waitArrivals(c.sink, result.accepted, DRAIN_MS);
  const after = cpu();
  const busy = machine.stop().whole;
  if (state.missing > 0 || state.bad > 0)
    throw new Error(`${c.type}: ${state.missing} events missing, ${state.bad} bad signatures`);
  const byDaemon = after.daemons.map((ms, i) => ms - before.daemons[i]);
  const turn = {
    type: c.type,
    round,
    callbacks: result.accepted.length,
    answered: RATE ? result.rate : result.rps,
    events: state.hooks,
    seconds: (state.lastArrival - start) / 1000,
    daemonMs: byDaemon.reduce((a, b) => a + b, 0),
    byDaemon,
    kinds: state.kinds,
    sinkMs: after.sink - before.sink,
    brokerMs: after.broker - before.broker,
  };
  const perEvent = (ms) => `${((ms / turn.events) * 1000).toFixed(0)} µs`;
  const kinds = Object.entries(turn.kinds)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  console.log(
    `round ${round + 1} ${c.type.padEnd(8)} ${turn.callbacks} callbacks (${turn.answered.toFixed(0)}/s answered), ${turn.events} events (${kinds}) in ${turn.seconds.toFixed(1)} s = ${(turn.events / turn.seconds).toFixed(0)} events/s; ` +
      `daemon CPU per event ${perEvent(turn.daemonMs)}${daemons.length > 1 ? ` (${daemons.map((d, i) => `${d.name.split('-').at(-1)} ${perEvent(byDaemon[i])}`).join(', ')})` : ''}, ` +
      `sink ${perEvent(turn.sinkMs)}${c.brokerPid === null ? '' : `, broker ${perEvent(turn.brokerMs)}`}; machine busy / idle / stolen ${percents(busy)} %`,
  );
  return turn;
}

/**
 * Per type, pooled over the rounds: CPU ms over events, events over seconds. The ratio to webhook
 * and the CPU per event beyond webhook's are the means of the rounds' figures: pooled ones would
 * weigh each type's rounds by their event counts, which differ from type to type at maximum rate.
 */
function summary(turns) {
  const pooled = (type) => {
    const mine = turns.filter((t) => t.type === type).sort((a, b) => a.round - b.round);
    const sum = (key) => mine.reduce((a, t) => a + t[key], 0);
    const events = sum('events');
    return {
      events,
      eventsPerSecond: events / sum('seconds'),
      daemonUs: (sum('daemonMs') / events) * 1000,
      sinkUs: (sum('sinkMs') / events) * 1000,
      brokerUs: (sum('brokerMs') / events) * 1000,
      rounds: mine.map((t) => t.daemonMs / t.events),
    };
  };
  const webhook = pooled('webhook');
  console.log(
    `\n${'type'.padEnd(9)}${'events'.padStart(8)}${'events/s'.padStart(10)}  daemon CPU/event  ratio to webhook (by round)  beyond webhook  sink, broker CPU/event`,
  );
  const mean = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length;
  for (const type of TYPES) {
    const p = pooled(type);
    const ratios = p.rounds.map((perEvent, round) => perEvent / webhook.rounds[round]);
    const ratio = `${mean(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(' ')})`;
    const beyondUs = mean(p.rounds.map((perEvent, round) => (perEvent - webhook.rounds[round]) * 1000));
    const beyond = `${beyondUs >= 0 ? '+' : ''}${beyondUs.toFixed(0)} µs`;
    const others = `${p.sinkUs.toFixed(0)} µs${type === 'webhook' ? '' : `, ${p.brokerUs.toFixed(0)} µs`}`;
    console.log(
      `${type.padEnd(9)}${String(p.events).padStart(8)}${p.eventsPerSecond.toFixed(0).padStart(10)}  ${`${p.daemonUs.toFixed(0)} µs`.padStart(16)}  ${ratio.padEnd(27)}  ${beyond.padStart(14)}  ${others}`,
    );
  }
}

/** The daemons' CPU with nothing to do (timers, pollers), which every event's share includes. */
async function idleCpu(base, daemons) {
  const idle = await waitIdle(base, DRAIN_MS);
  if (idle.left) throw new Error(`the pipeline did not go idle after the warm-ups: ${idle.left.join(', ')}`);
  const before = daemons.map((d) => cpuMsOf(d.pid));
  await sleep(IDLE_SECONDS * 1000);
  const perSecond = daemons.map((d, i) => (cpuMsOf(d.pid) - before[i]) / IDLE_SECONDS);
  console.log(
    `daemon CPU while idle: ${perSecond.reduce((a, b) => a + b, 0).toFixed(0)} ms/s${daemons.length > 1 ? ` (${daemons.map((d, i) => `${d.name.split('-').at(-1)} ${perSecond[i].toFixed(0)}`).join(', ')})` : ''}`,
  );
}
