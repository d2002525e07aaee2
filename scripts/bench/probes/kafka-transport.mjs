#!/usr/bin/env node
// What Kafka mode's transport alone costs per event on these cores: the least kafkajs code for the
// round trip Kafka mode adds to an event's delivery, with nothing else in it (no HTTP, no store).
// A "core" process publishes delivery jobs of about the daemon's size (1.2 kB of JSON, 32 keys,
// packed up to 64 to a record per partition, idempotent, acks -1, as src/streams/kafka/kafka-records.ts
// packs them); a "worker" process consumes them, parses each and publishes one attempt record
// (about 300 B) per job, packed the same way; the core consumes the records. Prints the round trips
// per second and the CPU per job of the core, the worker and the broker: the least Kafka mode can
// spend per event beside the embedded daemon's work.
//
//   node scripts/bench/probes/kafka-transport.mjs [seconds=10]
//
// Uses the test broker (scripts/kafka/kafka.sh, leased for the run). After a warm-up of 5 s the load
// keeps TRANSPORT_WINDOW jobs (default 256) whose record has not come back in flight, published
// TRANSPORT_BATCH at a time (default 32, a group commit's worth under load).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import kafkajs from 'kafkajs';
import { sleep, testBroker } from '../suite/lib.mjs';
import { cpuMsOf } from '../suite/proc-stats.mjs';

const { Kafka, logLevel } = kafkajs;
const PARTITIONS = 6;
const KEYS = 32;
const PACK = 64;
/** Jobs whose record has not come back, at most; jobs per publish (a group commit's worth). */
const WINDOW = Number(process.env.TRANSPORT_WINDOW ?? 256);
const BATCH = Number(process.env.TRANSPORT_BATCH ?? 32);

const [role, ...args] = process.argv.slice(2);
if (role === '--worker') await worker(args[0], args[1]);
else await core(Number(role ?? 10));

/** The messages of each partition, packed as JSON arrays of up to PACK texts. */
function packed(texts, keyOf) {
  const byPartition = new Map();
  texts.forEach((text, index) => {
    const partition = keyOf(index) % PARTITIONS;
    const list = byPartition.get(partition) ?? [];
    list.push(text);
    byPartition.set(partition, list);
  });
  const messages = [];
  for (const [partition, list] of byPartition) {
    for (let from = 0; from < list.length; from += PACK)
      messages.push({ partition, value: `[${list.slice(from, from + PACK).join(',')}]` });
  }
  return messages;
}

function client(brokers, id) {
  return new Kafka({ clientId: id, brokers: [brokers], logLevel: logLevel.NOTHING });
}

async function producerOf(kafka) {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  return producer;
}

/** Consumes jobs, answers each with its attempt record. */
async function worker(brokers, namespace) {
  const kafka = client(brokers, 'transport-worker');
  const producer = await producerOf(kafka);
  const consumer = kafka.consumer({ groupId: `${namespace}worker` });
  await consumer.connect();
  await consumer.subscribe({ topic: `${namespace}jobs`, fromBeginning: true });
  await consumer.run({
    partitionsConsumedConcurrently: PARTITIONS,
    eachBatch: async ({ batch }) => {
      const records = [];
      const companies = [];
      for (const message of batch.messages) {
        for (const job of JSON.parse(message.value.toString())) {
          companies.push(job.event.company_id);
          records.push(
            JSON.stringify({
              id: `att_${job.delivery_id}`,
              delivery_id: job.delivery_id,
              company_id: job.event.company_id,
              endpoint_id: job.endpoint.id,
              number: 1,
              step: 1,
              trigger: 'auto',
              started_at: Date.now(),
              duration_ms: 2,
              status_code: 200,
              response_body: '{"ok":true}',
              error: null,
              outcome: 'delivered',
              next_attempt_at: null,
              event_created_at: job.event.created_at,
            }),
          );
        }
      }
      await producer.send({ topic: `${namespace}records`, acks: -1, messages: packed(records, (i) => companies[i]) });
    },
  });
  process.send?.('ready');
}

/** Publishes jobs with WINDOW in flight, counts the records that come back; measures the three processes. */
async function core(seconds) {
  const broker = testBroker();
  if (broker.run('start').status !== 0)
    throw new Error('the Kafka test broker could not be started (scripts/kafka/kafka.sh start)');
  const { brokers } = broker;
  const namespace = `transport-${process.pid}-${Date.now()}.`;
  const kafka = client(brokers, 'transport-core');
  let child;
  try {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: ['jobs', 'records'].map((name) => ({ topic: `${namespace}${name}`, numPartitions: PARTITIONS })),
    });
    await admin.disconnect();
    child = fork(fileURLToPath(import.meta.url), ['--worker', brokers, namespace], { stdio: 'inherit' });
    await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`the worker exited (${code})`)));
    });
    const producer = await producerOf(kafka);
    const consumer = kafka.consumer({ groupId: `${namespace}core` });
    await consumer.connect();
    await consumer.subscribe({ topic: `${namespace}records`, fromBeginning: true });
    let sent = 0;
    let answered = 0;
    let wake = () => {};
    await consumer.run({
      partitionsConsumedConcurrently: PARTITIONS,
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) answered += JSON.parse(message.value.toString()).length;
        wake();
      },
    });
    let running = true;
    const load = (async () => {
      while (running) {
        if (sent - answered >= WINDOW) {
          await new Promise((resolve) => (wake = resolve));
          continue;
        }
        const count = Math.min(BATCH, WINDOW - (sent - answered));
        const jobs = Array.from({ length: count }, (_, i) => jobText(sent + i));
        sent += count;
        await producer.send({
          topic: `${namespace}jobs`,
          acks: -1,
          messages: packed(jobs, (i) => (sent - count + i) % KEYS),
        });
      }
    })();
    await sleep(5_000);
    const pids = { core: process.pid, worker: child.pid, broker: broker.pid() };
    const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
    const answered0 = answered;
    const started = performance.now();
    await sleep(seconds * 1000);
    const jobs = answered - answered0;
    const elapsed = (performance.now() - started) / 1000;
    const cpu = Object.entries(pids).map(([name, pid]) => [name, ((cpuMsOf(pid) - before[name]) * 1000) / jobs]);
    running = false;
    wake();
    await load;
    console.log(
      `kafka transport: ${jobs} jobs and their records in ${elapsed.toFixed(1)} s = ${(jobs / elapsed).toFixed(0)} round trips/s`,
    );
    console.log(
      `CPU per job: ${cpu.map(([name, us]) => `${name} ${us.toFixed(0)} µs`).join(', ')}; all three ${cpu.reduce((sum, [, us]) => sum + us, 0).toFixed(0)} µs`,
    );
    await consumer.disconnect();
    await producer.disconnect();
  } finally {
    child?.kill();
    broker.run('release');
  }
}

/** A delivery job of about the daemon's size: a message event of 1 kB with its endpoint. */
function jobText(n) {
  const company = n % KEYS;
  const event = {
    id: `evt_${n.toString(16).padStart(16, '0')}`,
    company_id: company,
    name: 'message.create',
    created_at: new Date().toISOString(),
    body: {
      id: `evt_${n}`,
      event: 'create',
      type: 'message',
      created_at: new Date().toISOString(),
      object: {
        id: n,
        conversation_id: n % 10_000,
        company_id: company,
        text: `b:${n}:${'x'.repeat(600)}`,
        contact: { id: n % 10_000, name: 'Sender' },
      },
    },
  };
  const endpoint = {
    id: company,
    url: `http://127.0.0.1:4000/hooks?c=${company}`,
    secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ordering: 'default',
  };
  return JSON.stringify({
    delivery_id: `dlv_${n.toString(16).padStart(16, '0')}`,
    event,
    endpoint,
    attempt: 1,
    step: 1,
    trigger: 'auto',
  });
}
