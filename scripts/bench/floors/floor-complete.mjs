// The complete floor: the least plain code that does everything the contract and docs/design.md
// require of a bot-style callback before answering it, written flat in one handler, without the
// daemon's layers (no router, no store classes, no stream, no dispatcher). Beside the minimal floors
// of floor-koa.mjs, which leave that work out, it shows what the job itself costs on the machine, so
// that a gateway's ratio to it is the cost of its structure alone. BENCHMARKS.md, "The floors".
//
//   node floor-complete.mjs <port> <dir> <channels> ingest
//   node floor-complete.mjs <port> <dir> <channels> ingest-threaded
//   node floor-complete.mjs <port> <dir> <channels> deliver <receiver url> <secrets file>
//   node floor-complete.mjs <port> <dir> <channels> deliver-inline <receiver url> <secrets file>
//
// Channels 1..<channels> answer at /callbacks/chat_b/<n>, with the secret token floorSecretToken(n)
// of floor-tokens.mjs, which the bench's floor load sends. For each callback, in order: the channel
// looked up (404); the raw body read (413 over 1 MiB) and decoded as strict UTF-8 (400); the secret
// token header compared with the channel's through its SHA-256 digest in constant time, as the
// daemon does for this family (401); the JSON parsed (400) and its depth bounded (32, 400); the
// update validated with ajv against the daemon's own schema, schemas/callbacks/bot.ts from dist/
// (422); then in a group commit (every callback of a turn of the event loop in one BEGIN IMMEDIATE
// ... COMMIT, WAL, synchronous=NORMAL): the message deduplicated by its provider id, the sender's
// contact found or created and its profile refreshed, the conversation found or created and moved
// (unreplied, open, unread count up by one, last message), the message row, and its events
// (conversation.create, or .update when it changed; message.create with the message's contact and
// conversation nested) with the contract's presented objects in the v2 envelope, as outbox rows.
// Once committed: the answer, one pino log line and the prom-client metrics the daemon keeps for a
// callback (accepted counter, request duration histogram).
//
// `ingest-threaded` does the same with the group commit on a thread of its own (floor-store-thread.mjs):
// what handing the store to the second core gives (docs/scaling.md).
//
// `deliver` also sends each committed event, signed, to the company's endpoint `<receiver url>?c=<n - 1>`
// with the `whsec_` secret of that index in the file, in commit order per endpoint (floor-deliver.mjs),
// from a thread of its own (floor-poster-thread.mjs), as the daemon posts from a poster thread.
// Each attempt answered 2xx is recorded (a delivery row, an attempt row with the first 4 KiB of the
// answer, the event marked published) in a later group commit and counted in the attempt metrics.
// `deliver-inline` sends from the event loop instead: slower (BENCHMARKS.md, "The floors").
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Ajv } from 'ajv';
import Koa from 'koa';
import pino from 'pino';
import { Counter, Histogram, Registry } from 'prom-client';
import getRawBody from 'raw-body';
import { botUpdate } from '../../../dist/schemas/callbacks/bot.js';
import { schemaWithSafeIntegers } from '../../../dist/src/http/input-values.js';
import { openFloorStore } from './floor-store.mjs';
import { callbackWriter } from './floor-writes.mjs';
import { endpointSender, loadKeys } from './floor-deliver.mjs';
import { floorSecretToken } from './floor-tokens.mjs';

const [portText, dir, channelsText, level, receiverUrl, secretsFile] = process.argv.slice(2);
const LEVELS = ['ingest', 'ingest-threaded', 'deliver', 'deliver-inline'];
if (!LEVELS.includes(level)) throw new Error(`unknown level ${level}: ${LEVELS.join(', ')}`);
const MAX_DEPTH = 32;

/** Channel n belongs to company n: its secret token's digest, and its endpoint's index in the secrets file. */
const channels = new Map();
for (let n = 1; n <= Number(channelsText); n += 1) {
  channels.set(String(n), { id: n, companyId: n, digest: digest(floorSecretToken(n)), endpoint: n - 1 });
}

// The threaded level opens its store on the thread.
const sql = level === 'ingest-threaded' ? null : openFloorStore(path.join(dir, `floor-complete-${level}.db`));

const logger = pino(
  { level: 'info', base: { service: 'floor' }, timestamp: pino.stdTimeFunctions.isoTime },
  pino.destination({ dest: path.join(dir, `floor-complete-${level}.log`), sync: true }),
);
const registry = new Registry();
const metrics = {
  accepted: new Counter({
    name: 'callbacks_accepted_total',
    help: 'accepted',
    labelNames: ['provider', 'duplicate'],
    registers: [registry],
  }),
  duration: new Histogram({
    name: 'http_request_duration_seconds',
    help: 'latency',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  }),
  attempts: new Counter({
    name: 'webhook_attempts_total',
    help: 'attempts',
    labelNames: ['outcome', 'trigger'],
    registers: [registry],
  }),
  deliveryLatency: new Histogram({
    name: 'webhook_delivery_latency_seconds',
    help: 'latency',
    labelNames: ['trigger'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60],
    registers: [registry],
  }),
};
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, strictRequired: false, allowUnionTypes: true });
ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
const validate = ajv.compile(schemaWithSafeIntegers(botUpdate));
const utf8 = new TextDecoder('utf-8', { fatal: true });

function digest(text) {
  return crypto.createHash('sha256').update(text).digest();
}

function deeperThan(value, depth) {
  if (typeof value !== 'object' || value === null) return false;
  if (depth === 0) return true;
  for (const key in value) if (deeperThan(value[key], depth - 1)) return true;
  return false;
}

class Refused extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const store = sql === null ? null : callbackWriter(sql);

let queue = [];
/** Attempts answered, recorded in the next group transaction. */
let attempts = [];
function flush() {
  const batch = queue;
  const recorded = attempts;
  queue = [];
  attempts = [];
  sql.begin.run();
  const now = Date.now();
  for (const job of batch) {
    try {
      job.events = store(job.channel, job.message, now);
    } catch (error) {
      job.error = error;
    }
  }
  for (const a of recorded)
    sql.recordDelivered(a.e.id, a.e.companyId, a.e.endpoint, a.statusCode, a.startedAt, a.durationMs, a.answer, now);
  sql.commit.run();
  for (const job of batch) {
    if (job.error === undefined && deliver !== null && job.events !== null) for (const e of job.events) deliver(e);
    if (job.error === undefined) job.resolve(job.events);
    else job.reject(job.error);
  }
}
const schedule = () => {
  if (queue.length + attempts.length === 1) setImmediate(flush);
};
const groupedHere = (channel, message) =>
  new Promise((resolve, reject) => {
    queue.push({ channel, message, resolve, reject });
    schedule();
  });

/**
 * `ingest-threaded`: the writes on the store thread (floor-store-thread.mjs), each turn's callbacks
 * handed over in one message; answers the callback's events as counts (null for a repeat).
 */
function storeOnThread() {
  const thread = new Worker(new URL('./floor-store-thread.mjs', import.meta.url), {
    workerData: { file: path.join(dir, 'floor-complete-ingest-threaded.db') },
  });
  const waiting = new Map();
  let outgoing = [];
  let seq = 0;
  thread.on('message', (answers) => {
    for (const [n, events, error] of answers) {
      const { resolve, reject } = waiting.get(n);
      waiting.delete(n);
      if (error === undefined) resolve(events === null ? null : new Array(events));
      else reject(new Error(error));
    }
  });
  thread.on('error', (error) => {
    process.stderr.write(`floor store thread failed: ${error.message}\n`);
    process.exit(1);
  });
  const send = () => {
    thread.postMessage(outgoing);
    outgoing = [];
  };
  return (channel, message) =>
    new Promise((resolve, reject) => {
      const n = (seq += 1);
      waiting.set(n, { resolve, reject });
      if (outgoing.push([n, { id: channel.id, companyId: channel.companyId }, message]) === 1) setImmediate(send);
    });
}

const grouped = level === 'ingest-threaded' ? storeOnThread() : groupedHere;

/** `deliver`: hands a committed event to the poster thread; `deliver-inline`: sends it from this thread. */
const deliver =
  level === 'deliver'
    ? posterThread()
    : level === 'deliver-inline'
      ? endpointSender({ receiverUrl, keys: loadKeys(secretsFile), answered })
      : null;

/** An attempt answered 2xx: counted, and recorded in the next group commit. */
function answered(e, statusCode, startedAt, durationMs, answer) {
  metrics.attempts.inc({ outcome: 'delivered', trigger: 'auto' });
  metrics.deliveryLatency.observe({ trigger: 'auto' }, (startedAt + durationMs - e.createdAt) / 1000);
  attempts.push({ e, statusCode, startedAt, durationMs, answer });
  schedule();
}

/** `deliver`: each turn's committed events to the poster thread in one message; its answers recorded. */
function posterThread() {
  const thread = new Worker(new URL('./floor-poster-thread.mjs', import.meta.url), {
    workerData: { receiverUrl, secretsFile },
  });
  thread.on('error', (error) => {
    process.stderr.write(`floor poster thread failed: ${error.message}\n`);
    process.exit(1);
  });
  thread.on('message', (answers) => {
    for (const [id, companyId, endpoint, createdAt, statusCode, startedAt, durationMs, answer] of answers)
      answered({ id, companyId, endpoint, createdAt }, statusCode, startedAt, durationMs, answer);
  });
  let outgoing = [];
  const send = () => {
    thread.postMessage(outgoing);
    outgoing = [];
  };
  return (e) => {
    if (outgoing.push([e.id, e.json, e.companyId, e.endpoint, e.createdAt]) === 1) process.nextTick(send);
  };
}

const CALLBACK = /^\/callbacks\/chat_b\/(\d+)$/;
const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method === 'GET') {
    ctx.body = { status: 'ok' };
    return;
  }
  const end = metrics.duration.startTimer();
  try {
    const channel = channels.get(CALLBACK.exec(ctx.path)?.[1]);
    if (channel === undefined) throw new Refused(404, 'not_found', 'channel not found');
    let text;
    try {
      text = utf8.decode(await getRawBody(ctx.req, { limit: 1024 * 1024 }));
    } catch (error) {
      throw error.type === 'entity.too.large'
        ? new Refused(413, 'payload_too_large', 'body too large')
        : new Refused(400, 'bad_request', 'body not UTF-8');
    }
    const given = digest(ctx.get('x-bot-api-secret-token'));
    if (!crypto.timingSafeEqual(given, channel.digest)) throw new Refused(401, 'unauthorized', 'bad secret token');
    let update;
    try {
      update = JSON.parse(text);
    } catch {
      throw new Refused(400, 'bad_request', 'not JSON');
    }
    if (deeperThan(update, MAX_DEPTH)) throw new Refused(400, 'bad_request', 'nested too deep');
    if (typeof update !== 'object' || update === null || Array.isArray(update) || !validate(update))
      throw new Refused(422, 'validation_failed', ajv.errorsText(validate.errors));
    const message = update.message ?? update.channel_post;
    const events = message === undefined ? [] : await grouped(channel, message);
    logger.info({ channel: channel.id, duplicate: events === null, events: events?.length ?? 0 }, 'callback applied');
    metrics.accepted.inc({ provider: 'chat_b', duplicate: String(events === null) });
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.body = '{"status":"ok"}';
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    ctx.status = error.status;
    ctx.body = { error: { code: error.code, message: error.message } };
  } finally {
    end({ method: ctx.method, route: '/callbacks/:provider/:channelId', status: String(ctx.status) });
  }
});
const server = http.createServer(app.callback());
server.keepAliveTimeout = 5_000;
server.listen(Number(portText), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
