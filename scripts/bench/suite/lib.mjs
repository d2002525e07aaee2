// Pieces every benchmark script shares: the checkout's root, the daemon's flags and tokens, the
// daemon process itself, the test Kafka broker, and the API calls that set companies up in it. The
// rest is beside it: proc-stats.mjs (CPU and RSS from /proc), load.mjs (the load generators),
// baseline.mjs (bare Koa and the floors' handler processes), sinks.mjs (the webhook receiver and the
// OTLP sink), prefill.mjs (stores filled in bulk).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../brokers/private-server.mjs';

export { freePort };

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** The daemon's node flags, as `npm start`, bin/gateway.js and the Dockerfile start it (docs/operations.md, "Memory"). */
export const DAEMON_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
export const API_TOKEN = 'gwk_bench-api-token-0123456789abcdef';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The test Kafka broker (scripts/kafka/kafka.sh) under a lease of this process: `run('start')`
 * starts it or joins the one running, `run('release')` drops the lease (stopping the broker if this
 * run started it and nobody else holds one); `pid()` is the broker's process once it runs.
 */
export function testBroker() {
  const port = process.env.KAFKA_PORT ?? '19092';
  const home =
    process.env.GATEWAY_KAFKA_HOME ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'gateway-kafka');
  const env = { ...process.env, KAFKA_LEASE: String(process.pid) };
  return {
    brokers: `127.0.0.1:${port}`,
    run: (command) =>
      spawnSync('bash', [path.join(ROOT, 'scripts/kafka/kafka.sh'), command], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    pid: () => Number(fs.readFileSync(path.join(home, `state-${port}`, 'kafka.pid'), 'utf8')),
  };
}

/**
 * Latencies grouped by the second their message was sent in, each second's sorted: message numbers
 * are taken in send order at `rate` a second, so (n - numbers[0]) / rate is the send time in s.
 * `numbers` sorted, `latencies` in the same order.
 */
export function bySendSecond(numbers, latencies, rate) {
  const seconds = [];
  numbers.forEach((n, i) => (seconds[Math.floor((n - numbers[0]) / rate)] ??= []).push(latencies[i]));
  for (const second of seconds) second?.sort((a, b) => a - b);
  return seconds;
}

/** Percentile of a sorted array (nearest rank). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Daemons running now: whatever ends this process (a scenario's watchdog included), they do not outlive it. */
const running = new Set();
process.once('exit', () => running.forEach((child) => child.kill('SIGKILL')));

/**
 * Starts `node bin/gateway.js serve` (the built daemon) on a data dir; resolves once /healthz
 * answers (or, for a worker, once it logged that it started). Its log goes to <dataDir>/<name>.log.
 */
export async function startDaemon({
  name,
  dataDir,
  port,
  role = 'all',
  env = {},
  cpuProf = null,
  nodeArgs: extraNodeArgs = [],
  // The checkout whose build runs (a probe may set another one against this one).
  root = ROOT,
}) {
  fs.mkdirSync(dataDir, { recursive: true });
  const logFile = path.join(dataDir, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  // One directory per daemon: each thread (the webhook poster threads too) writes its own profile
  // there, under node's default name (a fixed --cpu-prof-name would have them overwrite each other).
  const nodeArgs = [...DAEMON_NODE_FLAGS];
  if (cpuProf) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${path.join(cpuProf, `${name}-${Date.now()}`)}`);
  // BENCH_NODE_ARGS: node flags for the daemons only (e.g. --trace-gc; the output goes to their log).
  nodeArgs.push(...(process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean), ...extraNodeArgs);
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'bin/gateway.js'), 'serve', '--role', role], {
    cwd: root,
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
      ...Object.fromEntries(
        Object.entries(process.env)
          .filter(([key]) => key.startsWith('BENCH_GATEWAY_'))
          .map(([key, value]) => [key.slice('BENCH_'.length), value]),
      ),
      ...env,
    },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  running.add(child);
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    running.delete(child);
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited)
      throw new Error(
        `${name} exited during start (${JSON.stringify(exited)}); log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`,
      );
    if (Date.now() > deadline)
      throw new Error(`${name} did not start within 60 s; log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
    if (role === 'worker') {
      if (fs.readFileSync(logFile, 'utf8').includes('"worker started"')) break;
    } else {
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
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
    /** Ends it at once (SIGKILL): a crash, with no shutdown of its own. */
    async kill() {
      if (exited) return exited;
      const done = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      child.kill('SIGKILL');
      return done;
    },
  };
}

/** JSON request against the daemon; throws on an unexpected status. */
export async function call(base, method, urlPath, { body, admin = false, expect = [200, 201, 202] } = {}) {
  const headers = admin ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { 'x-private-api-token': API_TOKEN };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${urlPath}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
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
  const channelId = (
    await call(base, 'POST', `/p1/companies/${companyId}/channels`, {
      body: { provider: 'chat_b', token: '123456:bench-bot' },
    })
  ).data.external_id;
  const info = await call(base, 'GET', `/admin/channels/${channelId}/callback`, { admin: true });
  let webhook = null;
  if (webhookUrl)
    webhook = (
      await call(base, 'POST', `/api/p2/companies/${companyId}/webhooks`, { body: { url: webhookUrl, active: true } })
    ).webhook;
  return {
    companyId,
    channelId,
    secretToken: info.secrets.secret_token,
    callbackPath: `/callbacks/chat_b/${channelId}`,
    webhookSecret: webhook?.secret ?? null,
    endpointId: webhook?.id ?? null,
  };
}

/**
 * A webhook endpoint of `companyId` written straight into an open store (the in-process tools:
 * store-path.mjs, delivery-lifecycle.mjs), with the columns every checkout's schema has, so that
 * `--repo=<older checkout>` works too. Answers its id.
 */
export function insertBenchEndpoint(store, companyId) {
  const now = Date.now();
  const sql =
    "INSERT INTO webhook_endpoints (company_id, source, url, secret, created_at, updated_at) VALUES (?, 'api', 'https://receiver.example/hook', ?, ?, ?)";
  return Number(
    store.db.prepare(sql).run(companyId, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', now, now).lastInsertRowid,
  );
}
