// The floor of a durable ingest: the bare-Koa baseline (bare-koa.mjs) plus the least a gateway that
// follows DESIGN.md section 5 must do before it answers a callback, and nothing else of the daemon
// (no routing, verification, validation, normalizing, contacts, deliveries, logging or metrics).
// `node scripts/bench/cpu.mjs floor` runs it against bare Koa under the same load (BENCHMARKS.md).
//
//   node floor-koa.mjs <port> <dir> insert   the raw body, one INSERT
//   node floor-koa.mjs <port> <dir> design   the message deduplicated by its provider id (a UNIQUE
//                                            index), its conversation upserted, one event row
//
// Both commit in group transactions (every request of a turn of the event loop in one BEGIN
// IMMEDIATE ... COMMIT, WAL, synchronous=NORMAL, as the daemon does) and answer once committed.
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import Koa from 'koa';
import getRawBody from 'raw-body';

const [portText, dir, level] = process.argv.slice(2);
if (level !== 'insert' && level !== 'design') throw new Error(`unknown level ${level}: insert or design`);
const db = new Database(path.join(dir, `floor-${level}.db`));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
  CREATE TABLE IF NOT EXISTS bodies (id INTEGER PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS conversations (id INTEGER PRIMARY KEY, channel TEXT NOT NULL, chat INTEGER NOT NULL,
    replied_state TEXT NOT NULL, last_message_at INTEGER NOT NULL, UNIQUE (channel, chat));
  CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, channel TEXT NOT NULL, external_id TEXT NOT NULL,
    chat INTEGER NOT NULL, text TEXT, created_at INTEGER NOT NULL, UNIQUE (channel, external_id));
  CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, payload TEXT NOT NULL, created_at INTEGER NOT NULL);
`);
const insertBody = db.prepare('INSERT INTO bodies (body, created_at) VALUES (?, ?)');
const insertMessage = db.prepare(
  'INSERT INTO messages (channel, external_id, chat, text, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (channel, external_id) DO NOTHING',
);
const upsertConversation = db.prepare(
  `INSERT INTO conversations (channel, chat, replied_state, last_message_at) VALUES (?, ?, 'unreplied', ?)
   ON CONFLICT (channel, chat) DO UPDATE SET replied_state = 'unreplied', last_message_at = excluded.last_message_at`,
);
const insertEvent = db.prepare('INSERT INTO outbox (payload, created_at) VALUES (?, ?)');
const begin = db.prepare('BEGIN IMMEDIATE');
const commit = db.prepare('COMMIT');

/** One callback's writes. */
function store(channel, raw, update) {
  const now = Date.now();
  if (level === 'insert') {
    insertBody.run(raw, now);
    return;
  }
  const message = update.message;
  const written = insertMessage.run(channel, `${message.chat.id}:${message.message_id}`, message.chat.id, message.text ?? null, now);
  if (written.changes === 0) return; // a repeated callback: nothing more
  upsertConversation.run(channel, message.chat.id, now);
  insertEvent.run(JSON.stringify({ event: 'create', type: 'message', object: { id: Number(written.lastInsertRowid), chat: message.chat.id, text: message.text } }), now);
}

let queue = [];
function flush() {
  const batch = queue;
  queue = [];
  begin.run();
  for (const job of batch) {
    try {
      store(job.channel, job.raw, job.update);
      job.ok = true;
    } catch (error) {
      job.error = error;
    }
  }
  commit.run();
  for (const job of batch) (job.ok ? job.resolve : job.reject)(job.error);
}
const grouped = (job) =>
  new Promise((resolve, reject) => {
    if (queue.push({ ...job, resolve, reject }) === 1) setImmediate(flush);
  });

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
