// The floor of a durable ingest: the bare-Koa baseline (bare-koa.mjs) plus the least a gateway that
// follows docs/design.md section 5 must do before it answers a callback, and nothing else of the daemon
// (no routing, verification, validation, normalizing, contacts, deliveries, logging or metrics).
// `node scripts/bench/probes/cpu.mjs floor` runs it against bare Koa under the same load (BENCHMARKS.md).
//
//   node floor-koa.mjs <port> <dir> insert   the raw body, one INSERT
//   node floor-koa.mjs <port> <dir> design   the message deduplicated by its provider id (a UNIQUE
//                                            index), its conversation upserted, one event row
//   node floor-koa.mjs <port> <dir> deliver <receiver url> <secrets file>
//                                            design, and its events delivered: a conversation event
//                                            for a new conversation and the message's, each POSTed
//                                            once committed to `<receiver url>?c=<channel - 1>`,
//                                            signed (Standard Webhooks, node:crypto HMAC) with the
//                                            secret of that index in the file (a JSON array of
//                                            `whsec_` secrets), over a keep-alive pool, and marked
//                                            delivered in a later group transaction once answered 2xx
//
// All commit in group transactions (every request of a turn of the event loop in one BEGIN
// IMMEDIATE ... COMMIT, WAL, synchronous=NORMAL, as the daemon does) and answer once committed.
// `deliver` leaves out what the daemon's dispatcher adds to a delivery: the order per endpoint, the
// attempt records, retries, the endpoints and their filters read from the store, the poster thread.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import Koa from 'koa';
import getRawBody from 'raw-body';
import { Pool } from 'undici';

const [portText, dir, level, receiverUrl, secretsFile] = process.argv.slice(2);
if (level !== 'insert' && level !== 'design' && level !== 'deliver')
  throw new Error(`unknown level ${level}: insert, design or deliver`);
const db = new Database(path.join(dir, `floor-${level}.db`));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
  CREATE TABLE IF NOT EXISTS bodies (id INTEGER PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS conversations (id INTEGER PRIMARY KEY, channel TEXT NOT NULL, chat INTEGER NOT NULL,
    replied_state TEXT NOT NULL, last_message_at INTEGER NOT NULL, UNIQUE (channel, chat));
  CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, channel TEXT NOT NULL, external_id TEXT NOT NULL,
    chat INTEGER NOT NULL, text TEXT, created_at INTEGER NOT NULL, UNIQUE (channel, external_id));
  CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, payload TEXT NOT NULL, created_at INTEGER NOT NULL,
    delivered_at INTEGER);
`);
const insertBody = db.prepare('INSERT INTO bodies (body, created_at) VALUES (?, ?)');
const insertMessage = db.prepare(
  'INSERT INTO messages (channel, external_id, chat, text, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (channel, external_id) DO NOTHING',
);
const insertConversation = db.prepare(
  `INSERT INTO conversations (channel, chat, replied_state, last_message_at) VALUES (?, ?, 'unreplied', ?)
   ON CONFLICT (channel, chat) DO NOTHING`,
);
const touchConversation = db.prepare(
  "UPDATE conversations SET replied_state = 'unreplied', last_message_at = ? WHERE channel = ? AND chat = ?",
);
const markDelivered = db.prepare('UPDATE outbox SET delivered_at = ? WHERE id = ?');
const upsertConversation = db.prepare(
  `INSERT INTO conversations (channel, chat, replied_state, last_message_at) VALUES (?, ?, 'unreplied', ?)
   ON CONFLICT (channel, chat) DO UPDATE SET replied_state = 'unreplied', last_message_at = excluded.last_message_at`,
);
const insertEvent = db.prepare('INSERT INTO outbox (payload, created_at) VALUES (?, ?)');
const begin = db.prepare('BEGIN IMMEDIATE');
const commit = db.prepare('COMMIT');

/** One callback's writes; with `deliver`, answers its events to send once committed. */
function store(channel, raw, update) {
  const now = Date.now();
  if (level === 'insert') {
    insertBody.run(raw, now);
    return [];
  }
  const message = update.message;
  const written = insertMessage.run(
    channel,
    `${message.chat.id}:${message.message_id}`,
    message.chat.id,
    message.text ?? null,
    now,
  );
  if (written.changes === 0) return []; // a repeated callback: nothing more
  const messageId = Number(written.lastInsertRowid);
  if (level === 'design') {
    upsertConversation.run(channel, message.chat.id, now);
    insertEvent.run(
      JSON.stringify({
        event: 'create',
        type: 'message',
        object: { id: messageId, chat: message.chat.id, text: message.text },
      }),
      now,
    );
    return [];
  }
  const events = [];
  const event = (payload) => {
    const json = JSON.stringify(payload);
    events.push({ id: Number(insertEvent.run(json, now).lastInsertRowid), json, channel });
  };
  const created = insertConversation.run(channel, message.chat.id, now);
  if (created.changes === 0) touchConversation.run(now, channel, message.chat.id);
  else
    event({
      event: 'create',
      type: 'conversation',
      object: { id: Number(created.lastInsertRowid), chat: message.chat.id, replied_state: 'unreplied' },
    });
  event({
    event: 'create',
    type: 'message',
    object: { id: messageId, chat: message.chat.id, message: message.text, income: true },
  });
  return events;
}

let queue = [];
/** Events answered 2xx, marked delivered in the next group transaction. */
let delivered = [];
function flush() {
  const batch = queue;
  const marks = delivered;
  queue = [];
  delivered = [];
  begin.run();
  for (const job of batch) {
    try {
      job.events = store(job.channel, job.raw, job.update);
      job.ok = true;
    } catch (error) {
      job.error = error;
    }
  }
  const now = Date.now();
  for (const id of marks) markDelivered.run(now, id);
  commit.run();
  for (const job of batch) {
    if (job.ok) for (const event of job.events) deliver(event);
    (job.ok ? job.resolve : job.reject)(job.error);
  }
}
const schedule = () => {
  if (queue.length + delivered.length === 1) setImmediate(flush);
};
const grouped = (job) =>
  new Promise((resolve, reject) => {
    queue.push({ ...job, resolve, reject });
    schedule();
  });

const receiver = level === 'deliver' ? new URL(receiverUrl) : null;
const pool = receiver ? new Pool(receiver.origin, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 }) : null;
const keys =
  level === 'deliver'
    ? JSON.parse(fs.readFileSync(secretsFile, 'utf8')).map((secret) =>
        Buffer.from(secret.slice('whsec_'.length), 'base64'),
      )
    : [];

/** POSTs one committed event, signed with its channel's secret; marks it delivered once answered 2xx. */
function deliver({ id, json, channel }) {
  const index = Number(channel.slice(channel.lastIndexOf('/') + 1)) - 1;
  const webhookId = `evt_${id}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = crypto
    .createHmac('sha256', keys[index])
    .update(`${webhookId}.${timestamp}.${json}`)
    .digest('base64');
  pool
    .request({
      method: 'POST',
      path: `${receiver.pathname}?c=${index}`,
      headers: {
        'content-type': 'application/json',
        'webhook-id': webhookId,
        'webhook-timestamp': timestamp,
        'webhook-signature': `v1,${signature}`,
      },
      body: json,
    })
    .then(async (response) => {
      await response.body.dump();
      if (response.statusCode >= 200 && response.statusCode < 300) {
        delivered.push(id);
        schedule();
      }
    })
    .catch((error) => process.stderr.write(`floor delivery ${id} failed: ${error.message}\n`));
}

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method === 'GET') {
    ctx.body = { status: 'ok' };
    return;
  }
  const raw = (await getRawBody(ctx.req, { limit: 1024 * 1024 })).toString('utf8');
  const update = JSON.parse(raw);
  await grouped({ channel: ctx.path, raw, update });
  ctx.body = { status: 'ok' };
});
const server = http.createServer(app.callback());
server.keepAliveTimeout = 5_000;
server.listen(Number(portText), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
