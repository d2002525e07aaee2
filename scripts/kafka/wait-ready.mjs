#!/usr/bin/env node
// Waits until a Kafka broker answers metadata requests (used by kafka.sh).
//
//   node scripts/kafka/wait-ready.mjs <host:port[,host:port...]> [timeoutMs] [--warm]
//
// Exit 0 once listTopics + describeCluster succeed, 1 on timeout (last error on
// stderr), 2 if kafkajs cannot be loaded (run `npm install`).
// --warm (used right after a fresh start): additionally wait until the group
// coordinator (__consumer_offsets) and the producer-id/transaction coordinator
// are loaded, so the first test does not hit "coordinator is loading" retries.
const [brokersArg, timeoutArg, warmArg] = process.argv.slice(2);
const warm = warmArg === '--warm';
if (!brokersArg) {
  console.error('usage: wait-ready.mjs <host:port[,...]> [timeoutMs]');
  process.exit(64);
}
const brokers = brokersArg
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);
const timeoutMs = Number(timeoutArg ?? 60_000);
const deadline = Date.now() + (Number.isFinite(timeoutMs) ? timeoutMs : 60_000);

let Kafka, logLevel, Partitioners;
try {
  ({ Kafka, logLevel, Partitioners } = await import('kafkajs'));
} catch (err) {
  console.error(`wait-ready: cannot load kafkajs (${err?.message ?? err}); run npm install in the repo`);
  process.exit(2);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function probe() {
  const kafka = new Kafka({
    clientId: 'gateway-kafka-wait-ready',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 3_000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin({ retry: { retries: 0 } });
  try {
    await admin.connect();
    await admin.listTopics();
    const cluster = await admin.describeCluster();
    if (!cluster.brokers?.length) throw new Error('metadata lists no brokers yet');
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

async function warmUp() {
  // kafkajs needs at least one retry here (the first coordinator lookup only
  // refreshes metadata); the outer loop bounds the total time.
  const retry = { retries: 3, initialRetryTime: 100, maxRetryTime: 1_000 };
  const kafka = new Kafka({
    clientId: 'gateway-kafka-wait-ready',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 5_000,
    retry,
  });
  const admin = kafka.admin({ retry });
  // Idempotent producer connect = InitProducerId (producer-id manager ready).
  const producer = kafka.producer({
    idempotent: true,
    retry,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  try {
    await admin.connect();
    // FindCoordinator for a group creates and loads __consumer_offsets.
    await admin.describeGroups(['gateway-kafka-warmup']);
    await producer.connect();
  } finally {
    await producer.disconnect().catch(() => {});
    await admin.disconnect().catch(() => {});
  }
}

let lastError;
for (;;) {
  try {
    await probe();
    if (warm) await warmUp();
    process.exit(0);
  } catch (err) {
    lastError = err;
  }
  if (Date.now() + 250 >= deadline) break;
  await sleep(250);
}
console.error(
  `wait-ready: broker ${brokers.join(',')} did not answer a metadata request: ${lastError?.message ?? lastError}`,
);
process.exit(1);
