// Pieces of the benchmark (scripts/bench/bench.mjs): daemon processes, the webhook receiver, the
// load generators, RSS sampling and the store prefill.
import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { Pool } from 'undici';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The daemon's node flags, as `npm start`, bin/gateway.js and the Dockerfile start it (docs/operations.md, "Memory"). */
export const DAEMON_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
export const API_TOKEN = 'gwk_bench-api-token-0123456789abcdef';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Percentile of a sorted array (nearest rank). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Resident set size of a process in bytes (Linux /proc), or null once it is gone. */
export function rssOf(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** A /proc stat file (a process's or a thread's): its name and the CPU ms it used (utime + stime, 100 ticks a second). */
export function statCpu(file) {
  const raw = fs.readFileSync(file, 'utf8');
  const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return { name: raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')')), ms: (Number(fields[11]) + Number(fields[12])) * 10 };
}

/** CPU ms a process has used, all its threads. */
export function cpuMsOf(pid) {
  return statCpu(`/proc/${pid}/stat`).ms;
}

/** busy / idle / stolen percentages of a sampleMachine share, for a table or a log line. */
export const percents = ({ busy, idle, steal }) => `${busy.toFixed(0)} / ${idle.toFixed(0)} / ${steal.toFixed(0)}`;

/** The machine's CPU ticks so far (Linux /proc/stat, all CPUs): busy, idle (with I/O wait) and steal. */
function machineTicks() {
  const [, user, nice, system, idle, iowait, irq, softirq, steal] = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).map(Number);
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
}

/**
 * Samples the machine's CPU every `everyMs`: stop() answers the percentages of each interval that
 * were busy, idle and stolen (the hypervisor running someone else while this machine had work).
 */
export function sampleMachine(everyMs = 1_000) {
  const intervals = [];
  let last = machineTicks();
  const share = (from, to) => {
    const total = to.busy + to.idle + to.steal - (from.busy + from.idle + from.steal) || 1;
    return { busy: (100 * (to.busy - from.busy)) / total, idle: (100 * (to.idle - from.idle)) / total, steal: (100 * (to.steal - from.steal)) / total };
  };
  const first = last;
  const timer = setInterval(() => {
    const now = machineTicks();
    intervals.push(share(last, now));
    last = now;
  }, everyMs);
  return { stop: () => (clearInterval(timer), { intervals, whole: share(first, machineTicks()) }) };
}

/** Samples the RSS of the given pids every `everyMs`; stop() answers the samples [{t, rss}] per pid. */
export function sampleRss(pids, everyMs = 200) {
  const samples = Object.fromEntries(pids.map((pid) => [pid, []]));
  const start = performance.now();
  const timer = setInterval(() => {
    for (const pid of pids) {
      const rss = rssOf(pid);
      if (rss !== null) samples[pid].push({ t: performance.now() - start, rss });
    }
  }, everyMs);
  return { stop: () => (clearInterval(timer), samples) };
}

/**
 * RSS samples of one process (sampleRss) as the memory targets read them, in MB: the peak of all of
 * them, and the means of the first and the last third of `steady` (the phase compared). Each window
 * is a third of the phase: V8 collects the old generation every 30-60 s at the bench's rates, and
 * RSS rises by up to 80 MB of garbage in between (BENCHMARKS.md, "Memory"), so shorter windows
 * compare the phases of that cycle, not growth.
 */
export function rssThirds(samples, steady = samples) {
  const mean = (xs) => xs.reduce((a, s) => a + s.rss, 0) / xs.length / 1024 / 1024;
  const window = Math.max(1, Math.round(steady.length / 3));
  return { peak: samples.reduce((max, s) => Math.max(max, s.rss), 0) / 1024 / 1024, first: mean(steady.slice(0, window)), last: mean(steady.slice(-window)) };
}

/**
 * Starts `node bin/gateway.js serve` (the built daemon) on a data dir; resolves once /healthz
 * answers (or, for a worker, once it logged that it started). Its log goes to <dataDir>/<name>.log.
 */
export async function startDaemon({ name, dataDir, port, role = 'all', env = {}, cpuProf = null, nodeArgs: extraNodeArgs = [] }) {
  fs.mkdirSync(dataDir, { recursive: true });
  const logFile = path.join(dataDir, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  // One directory per daemon: each thread (the webhook poster threads too) writes its own profile
  // there, under node's default name (a fixed --cpu-prof-name would have them overwrite each other).
  const nodeArgs = [...DAEMON_NODE_FLAGS];
  if (cpuProf) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${path.join(cpuProf, `${name}-${Date.now()}`)}`);
  // BENCH_NODE_ARGS: node flags for the daemons only (e.g. --trace-gc; the output goes to their log).
  nodeArgs.push(...(process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean), ...extraNodeArgs);
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'bin/gateway.js'), 'serve', '--role', role], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GATEWAY_PORT: String(port ?? 0),
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_BOOTSTRAP_TOKEN: API_TOKEN,
      GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      GATEWAY_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      // BENCH_GATEWAY_<KEY>=v in the bench's environment sets GATEWAY_<KEY>=v for every daemon
      // (experiments, e.g. BENCH_GATEWAY_WEBHOOK_THREADS=0).
      ...Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('BENCH_GATEWAY_')).map(([key, value]) => [key.slice('BENCH_'.length), value])),
      ...env,
    },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  let exited = null;
  child.on('exit', (code, signal) => (exited = { code, signal }));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`${name} exited during start (${JSON.stringify(exited)}); log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`${name} did not start within 60 s; log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
    if (role === 'worker') {
      if (fs.readFileSync(logFile, 'utf8').includes('"worker started"')) break;
    } else {
      const ok = await fetch(`${base}/healthz`).then((r) => r.ok, () => false);
      if (ok) break;
    }
    await sleep(100);
  }
  return {
    name,
    pid: child.pid,
    base,
    logFile,
    async stop() {
      if (exited) return exited;
      const done = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const result = await done;
      clearTimeout(timer);
      return result;
    },
  };
}

/** The load of the bare-Koa baseline: every request to one path (bare Koa reads and parses the body, whatever the path). */
export const BARE_TARGETS = [{ callbackPath: '/callbacks/chat_b/1', secretToken: 'none' }];

/**
 * The baseline of every ratio: bare Koa at maximum rate after a warm-up, with what a request cost
 * each side (bare Koa and this process, the load generator) and the machine's CPU shares meanwhile.
 * `handler` starts another handler script instead (startBareKoa), `targets` spreads the load over
 * other paths, `cpuProf` writes the handler's .cpuprofile into that directory.
 */
export async function measureBare({ warmSeconds, seconds, handler = [], targets = BARE_TARGETS, cpuProf = null }) {
  const bare = await startBareKoa(cpuProf, handler);
  try {
    const warm = await maxRate({ base: bare.base, companies: targets, seconds: warmSeconds });
    const [b0, g0] = [cpuMsOf(bare.pid), cpuMsOf(process.pid)];
    const machine = sampleMachine();
    const result = await maxRate({ base: bare.base, companies: targets, seconds });
    const perRequest = (ms) => (ms * 1000) / result.total;
    // `handled`: every request of the process's life, the units of its .cpuprofile (profile-categories.mjs).
    return { ...result, handled: warm.total + result.total, machine: machine.stop().whole, bareUs: perRequest(cpuMsOf(bare.pid) - b0), loadUs: perRequest(cpuMsOf(process.pid) - g0) };
  } finally {
    await bare.stop();
  }
}

/**
 * Starts the bare-Koa baseline process, or with `handler` another handler of the same shape:
 * `[script, ...args]` of scripts/bench, started as `node <script> <port> ...args` (floor-koa.mjs).
 */
export async function startBareKoa(cpuProf = null, handler = []) {
  const port = await freePort();
  const nodeArgs = cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [];
  const [script = 'bare-koa.mjs', ...args] = handler;
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'scripts/bench', script), String(port), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', () => reject(new Error(`${script} exited during start`)));
  });
  return {
    pid: child.pid,
    base: `http://127.0.0.1:${port}`,
    async stop() {
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await done;
    },
  };
}

/** JSON request against the daemon; throws on an unexpected status. */
export async function call(base, method, urlPath, { body, admin = false, expect = [200, 201, 202] } = {}) {
  const headers = admin ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { 'x-private-api-token': API_TOKEN };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${urlPath}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!expect.includes(response.status)) throw new Error(`${method} ${urlPath}: ${response.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * `count` companies, each with a bot-style (chat_b) channel and, when `receiverUrl` is given, one
 * webhook endpoint at the receiver (`?c=<index>` tells the receiver which secret verifies it; the
 * indexes start at `firstIndex`, so that daemons measured in turn can share the receiver).
 * Deliveries of one endpoint go out in order, one at a time; the load is spread over the companies.
 */
export async function setupCompanies(base, receiverUrl, count, concurrency = 1, firstIndex = 0) {
  const companies = new Array(count);
  let next = 0;
  // `concurrency` setups in flight (thousands of companies), each keeping its index.
  const lane = async () => {
    while (next < count) {
      const i = next++;
      companies[i] = await setupCompany(base, receiverUrl ? `${receiverUrl}?c=${firstIndex + i}` : null);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return companies;
}

export async function setupCompany(base, webhookUrl) {
  const companyId = (await call(base, 'POST', '/p1/companies', { body: { name: 'Bench Co' } })).data.external_id;
  const channelId = (await call(base, 'POST', `/p1/companies/${companyId}/channels`, { body: { provider: 'chat_b', token: '123456:bench-bot' } })).data.external_id;
  const info = await call(base, 'GET', `/admin/channels/${channelId}/callback`, { admin: true });
  let webhook = null;
  if (webhookUrl) webhook = (await call(base, 'POST', `/api/p2/companies/${companyId}/webhooks`, { body: { url: webhookUrl, active: true } })).webhook;
  return { companyId, channelId, secretToken: info.secrets.secret_token, callbackPath: `/callbacks/chat_b/${channelId}`, webhookSecret: webhook?.secret ?? null, endpointId: webhook?.id ?? null };
}

/**
 * A bot-style update: message `n` from sender `n % senders` (chat ids from `firstSender` on). The text carries `b:<n>:<send time>`
 * (epoch ms with fractions) so the receiver can measure callback → webhook.
 */
export function botBody(n, senders, stamp, firstSender = 100_000) {
  const chat = firstSender + (n % senders);
  return JSON.stringify({
    update_id: 1_000_000 + n,
    message: {
      message_id: n,
      from: { id: chat, is_bot: false, first_name: 'Sender', last_name: String(chat), username: `sender_${chat}` },
      chat: { id: chat, first_name: 'Sender', last_name: String(chat), username: `sender_${chat}`, type: 'private' },
      date: 1_749_416_383,
      text: `b:${n}:${stamp.toFixed(3)}`,
    },
  });
}

/**
 * The webhook receiver (scripts/bench/receiver.mjs) in its own process. Send times are epoch ms
 * (performance.timeOrigin + performance.now()), comparable across the two processes.
 */
/**
 * The OTLP/HTTP receiver of a traced run (scripts/bench/otlp-sink.mjs, a process of its own):
 * `env` turns tracing on in a daemon started with it, at 100 % sampling, in `protocol`
 * (http/protobuf or http/json); `status()` answers the export requests, bytes and spans received.
 */
export async function startOtlpSink(protocol = 'http/protobuf') {
  const child = fork(path.join(ROOT, 'scripts/bench/otlp-sink.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = () => new Promise((resolve) => child.once('message', resolve));
  const { port } = await next();
  return {
    pid: child.pid,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_TRACES_SAMPLER: 'always_on' },
    status: () => {
      const answer = next();
      child.send({ type: 'status' });
      return answer;
    },
    async close() {
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await done;
    },
  };
}

export async function startReceiver() {
  const child = fork(path.join(ROOT, 'scripts/bench/receiver.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const replies = [];
  let waiting = null;
  child.on('message', (message) => {
    if (waiting) {
      const w = waiting;
      waiting = null;
      w(message);
    } else replies.push(message);
  });
  const next = () => (replies.length > 0 ? Promise.resolve(replies.shift()) : new Promise((resolve) => (waiting = resolve)));
  let queue = Promise.resolve();
  /** One request at a time over IPC, each answered by one message. */
  const ask = (message) => {
    const answer = queue.then(() => {
      child.send(message);
      return next();
    });
    queue = answer.catch(() => {});
    return answer;
  };
  const { port } = await next();
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    pid: child.pid,
    useCompanies: (companies) => ask({ type: 'secrets', secrets: companies.map((c) => c.webhookSecret) }),
    reset: () => ask({ type: 'reset' }),
    /** Endpoints (company indexes) that never answer (`hang`) or answer 500 (`fail`) from now on. */
    misbehave: ({ hang = [], fail = [] }) => ask({ type: 'behaviours', hang, fail }),
    expect: (accepted) => ask({ type: 'expect', expect: accepted }),
    status: () => ask({ type: 'status' }),
    /** Callback → webhook ms of the given message numbers that arrived, sorted. */
    latencies: async (of) => (await ask({ type: 'latencies', of })).latencies.filter((l) => l !== null).sort((a, b) => a - b),
    /** Callback → webhook ms of each given message number, in the order given (null: not arrived). */
    latenciesOf: async (of) => (await ask({ type: 'latencies', of })).latencies,
    async close() {
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await done;
    },
  };
}

export const epochNow = () => performance.timeOrigin + performance.now();

let counter = 1;
/** A message number never used before in this run (every callback is a new message). */
export const takeN = () => counter++;

/**
 * Closed-loop load at maximum rate (autocannon): `connections` callbacks in flight, each new one
 * distinct. Answers autocannon's result plus the message numbers answered 2xx.
 */
export async function maxRate({ base, companies, seconds, connections = 32, senders = 10_000, firstSender = 100_000 }) {
  const accepted = [];
  const targets = companies.map((c) => ({ path: c.callbackPath, headers: { 'content-type': 'application/json', 'x-bot-api-secret-token': c.secretToken } }));
  const result = await autocannon({
    url: base,
    connections,
    pipelining: 1,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: targets[0].path,
        headers: targets[0].headers,
        setupRequest(req, context) {
          const mine = takeN();
          context.n = mine;
          const target = targets[mine % targets.length];
          return { ...req, path: target.path, headers: target.headers, body: botBody(mine, senders, epochNow(), firstSender) };
        },
        onResponse(status, _body, context) {
          if (status >= 200 && status < 300) accepted.push(context.n);
        },
      },
    ],
  });
  return {
    rps: result.requests.total / (result.duration || seconds),
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    accepted,
  };
}

/**
 * Open-loop load at a fixed rate: `rate` callbacks per second spread evenly (every 5 ms a slice),
 * whatever the answers, over a pool of keep-alive connections. Answers per-request HTTP latencies.
 */
export async function fixedRate({ base, companies, rate, seconds, senders = 10_000, connections = 64 }) {
  const pool = new Pool(base, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
  // Every connection is open before the clock starts, as a sender at a steady rate keeps its
  // keep-alive connections. Opened on demand, they were opened in the measured seconds whenever the
  // answers slowed, and some callbacks were then answered 100-500 ms after they were sent while the
  // daemon's request log had none above 84 ms.
  await Promise.all(Array.from({ length: connections }, () => pool.request({ method: 'GET', path: '/healthz' }).then((res) => res.body.dump())));
  const targets = companies.map((c) => ({ path: c.callbackPath, headers: { 'content-type': 'application/json', 'x-bot-api-secret-token': c.secretToken } }));
  const latencies = [];
  const accepted = [];
  let failed = 0;
  const inflight = new Set();
  const total = Math.round(rate * seconds);
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
    while (sent < due) {
      const mine = takeN();
      sent += 1;
      const t0 = performance.now();
      const target = targets[mine % targets.length];
      const p = pool
        .request({ method: 'POST', path: target.path, headers: target.headers, body: botBody(mine, senders, epochNow()) })
        .then(async (res) => {
          await res.body.dump();
          latencies.push(performance.now() - t0);
          if (res.statusCode >= 200 && res.statusCode < 300) accepted.push(mine);
          else failed += 1;
        })
        .catch(() => (failed += 1))
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await sleep(5);
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { rate: sent / elapsed, total: sent, failed, accepted, p50: percentile(latencies, 50), p99: percentile(latencies, 99), p999: percentile(latencies, 99.9) };
}

/**
 * Waits until the daemon's pipeline is idle: no outbox row pending and no stream message due and
 * not committed by its consumer group (GET /metrics: gateway_outbox_pending_rows and
 * gateway_stream_lag_messages), twice in a row. Webhooks arriving does not mean that: attempt
 * records (gateway.attempts in Kafka mode) and stream commits may still be on their way. Answers
 * how long it waited and what was left when it gave up (null when idle).
 */
export async function waitIdle(base, timeoutMs) {
  const started = performance.now();
  let idleTimes = 0;
  let left = null;
  for (;;) {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const text = await response.text();
    left = text
      .split('\n')
      .filter((line) => /^gateway_(outbox_pending_rows|stream_lag_messages)\b/.test(line) && Number(line.split(' ').at(-1)) > 0);
    idleTimes = left.length === 0 ? idleTimes + 1 : 0;
    const waitedMs = performance.now() - started;
    if (idleTimes === 2) return { waitedMs, left: null };
    if (waitedMs > timeoutMs) return { waitedMs, left };
    await sleep(100);
  }
}

/** Waits until every accepted message number reached the receiver, or the timeout passed; answers the receiver's status. */
export async function waitArrivals(receiver, accepted, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  await receiver.expect(accepted);
  for (;;) {
    const status = await receiver.status();
    if (status.missing === 0 || performance.now() > deadline) return status;
    await sleep(200);
  }
}

/**
 * Fills the store of a stopped daemon with `messages` incoming messages spread over `conversations`
 * conversations (one contact each) of the channel, with a callback receipt each: a larger store
 * than the daemon writes (an update carrying a message claims no receipt), so the scenarios run
 * against a store no smaller than a real one. Direct SQL through the store's schema, in bulk.
 */
export function prefillStore(dbFile, { companyId, channelId, conversations, messages }) {
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const now = Date.now();
  db.transaction(() => {
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @conversations)
       INSERT INTO contacts (company_id, channel_id, external_id, external_public_id, name, created_at, updated_at)
       SELECT @companyId, @channelId, 'pre' || i, '@pre' || i, 'Prefilled ' || i, @now, @now FROM n`,
    ).run({ companyId, channelId, conversations, now });
    db.prepare(
      `INSERT INTO conversations (company_id, channel_id, contact_id, created_at, last_updated_at)
       SELECT company_id, channel_id, id, @now, @now FROM contacts WHERE channel_id = @channelId AND external_id LIKE 'pre%'`,
    ).run({ channelId, now });
  })();
  const conv = db.prepare("SELECT min(c.id) AS first, min(k.id) AS contact FROM conversations c JOIN contacts k ON k.id = c.contact_id WHERE k.external_id LIKE 'pre%'").get();
  const chunk = 500_000;
  for (let from = 0; from < messages; from += chunk) {
    const to = Math.min(messages, from + chunk);
    db.transaction(() => {
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT @from UNION ALL SELECT i + 1 FROM n WHERE i < @to - 1)
         INSERT INTO messages (company_id, channel_id, conversation_id, contact_id, external_id, income, status, text, created_at, external_created_at)
         SELECT @companyId, @channelId, @firstConv + (i % @conversations), @firstContact + (i % @conversations), 'pre:' || i, 1, 'created',
                'A prefilled message number ' || i, @now, @now - (@messages - i) * 1000 FROM n`,
      ).run({ from, to, companyId, channelId, firstConv: conv.first, firstContact: conv.contact, conversations, messages, now });
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT @from UNION ALL SELECT i + 1 FROM n WHERE i < @to - 1)
         INSERT INTO callback_receipts (channel_id, key, created_at) SELECT @channelId, 'update:pre' || i, @now FROM n`,
      ).run({ from, to, channelId, now });
    })();
  }
  db.prepare(
    `UPDATE conversations SET last_message_id = (SELECT max(id) FROM messages m WHERE m.conversation_id = conversations.id)
     WHERE channel_id = ? AND contact_id IN (SELECT id FROM contacts WHERE external_id LIKE 'pre%')`,
  ).run(channelId);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('ANALYZE');
  const counts = db.prepare('SELECT (SELECT count(*) FROM messages) AS messages, (SELECT count(*) FROM conversations) AS conversations').get();
  db.close();
  // synchronous = OFF left the file's pages to the kernel's writeback: flushed here, not by the
  // daemon's first checkpoint (its fsync took 0.6 s at the start of the measured run).
  const fd = fs.openSync(dbFile, 'r+');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  return counts;
}

/** `count` failed deliveries of message.create events to the endpoint, as the schedule leaves them. */
export function prefillFailedDeliveries(dbFile, { companyId, endpointId, count, from = 0 }) {
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const now = Date.now();
  const created = new Date(now).toISOString();
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT @from + 1 UNION ALL SELECT i + 1 FROM n WHERE i < @from + @count)
     INSERT INTO webhook_deliveries (id, seq, event_id, event_name, company_id, endpoint_id, event, status, attempt_count, last_status_code, last_error, created_at, updated_at)
     SELECT 'dlv_bench' || i, (SELECT coalesce(max(seq), 0) FROM webhook_deliveries) + i - @from, 'evt_bench' || i, 'message.create', @companyId, @endpointId,
            json_object('id', 'evt_bench' || i, 'company_id', @companyId, 'name', 'message.create', 'created_at', @created,
              'body', json_object('id', 'evt_bench' || i, 'event', 'create', 'type', 'message', 'created_at', @created,
                'object', json_object('id', i, 'message', 'r:' || i, 'income', json('true')))),
            'failed', 8, 500, 'the receiver answered 500', @now, @now
     FROM n`,
  ).run({ count, from, companyId, endpointId, created, now });
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
