// The two ends of kafka-transport.mjs's round trip, each a process it forks and measures:
//
//   node kafka-transport-ends.mjs --core <client> <brokers> <namespace>
//   node kafka-transport-ends.mjs --worker <client> <brokers> <namespace>
//
// The core creates the topics (then sends `topics`), on `start` publishes jobs and consumes their
// records (then sends `loading`); the worker consumes jobs and publishes records (sends `ready` once
// it consumes). Both answer `count` with their counts and stop on `stop` (after closing their clients).
import { fileURLToPath } from 'node:url';
import { transportClient } from './kafka-transport-clients.mjs';

const PARTITIONS = 6;
const KEYS = 32;
const PACK = 64;
/** Jobs whose record has not come back, at most; jobs per publish (a group commit's worth). */
const WINDOW = Number(process.env.TRANSPORT_WINDOW ?? 256);
const BATCH = Number(process.env.TRANSPORT_BATCH ?? 32);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [role, ...args] = process.argv.slice(2);
  if (role === '--core') await core(args[0], args[1], args[2]);
  else if (role === '--worker') await worker(args[0], args[1], args[2]);
  else throw new Error(`unknown role "${role}" (--core or --worker)`);
}

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

/** The next IPC message of `child` (or of this process's parent) of `type`; rejects if the child exits first. */
export function message(type, child = process) {
  return new Promise((resolve, reject) => {
    const onMessage = (m) => {
      if ((m?.type ?? m) !== type) return;
      child.off('message', onMessage);
      resolve(m);
    };
    child.on('message', onMessage);
    if (child !== process)
      child.once('exit', (code) => reject(new Error(`a ${type} was awaited; the process exited (${code})`)));
  });
}

/** Answers the measurer's counts (`count`) and stops on `stop`, after `close`. */
function serve(counts, close) {
  process.on('message', (m) => {
    if (m === 'count') process.send({ type: 'count', ...counts() });
    if (m === 'stop')
      void close().finally(() => {
        process.send({ type: 'stopped' });
        process.exit(0);
      });
  });
}

/** Consumes jobs, answers each with its attempt record. */
async function worker(clientName, brokers, namespace) {
  const client = await transportClient(clientName, brokers, 'transport-worker');
  const producer = await client.producer();
  const consumer = await client.consume(`${namespace}worker`, `${namespace}jobs`, async (messages) => {
    const records = [];
    const companies = [];
    for (const message of messages) {
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
    await producer.send(
      `${namespace}records`,
      packed(records, (i) => companies[i]),
    );
  });
  serve(
    () => ({ requests: { ...client.requests } }),
    async () => {
      await consumer.close();
      await producer.close();
    },
  );
  process.send('ready');
}

/** Creates the topics; on `start`, publishes jobs with WINDOW in flight and counts the records that come back. */
async function core(clientName, brokers, namespace) {
  const client = await transportClient(clientName, brokers, 'transport-core');
  await client.createTopics([`${namespace}jobs`, `${namespace}records`], PARTITIONS);
  process.send('topics');
  await message('start');
  const producer = await client.producer();
  let sent = 0;
  let answered = 0;
  let wake = () => {};
  const consumer = await client.consume(`${namespace}core`, `${namespace}records`, async (messages) => {
    for (const message of messages) answered += JSON.parse(message.value.toString()).length;
    wake();
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
      await producer.send(
        `${namespace}jobs`,
        packed(jobs, (i) => (sent - count + i) % KEYS),
      );
    }
  })();
  serve(
    () => ({ answered, requests: { ...client.requests } }),
    async () => {
      running = false;
      wake();
      await load;
      await consumer.close();
      await producer.close();
    },
  );
  process.send('loading');
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
