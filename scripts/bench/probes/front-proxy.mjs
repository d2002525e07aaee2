// The front's CPU per proxied callback alone: a front (src/front/, built) before one shard that
// answers at once, under signed-callback-sized POSTs from 32 connections. With two builds it
// alternates them and prints each one's mean and the second's ratio to the first, the way to
// compare a change to the front (the old build copied aside first: cp -r dist /tmp/old-dist).
//
// Usage: node scripts/bench/probes/front-proxy.mjs [dist A=dist] [dist B=dist A] [rounds=4] [requests=10000] [rate=0]
// A build named `bare` is the least proxy Node does with the same client: node:http's server
// passing each request to an undici Pool and its answer back, with no routing, checks or metrics,
// the floor under any front written in Node. A build named `haproxy` is Debian's HAProxy with one
// thread and keep-alive to the shard: the same hop outside Node.
// Prints, per round and build: the front's CPU per request (user+sys, µs) and requests/s. With a
// rate (requests/s), the requests are sent at that pace (open loop, as bench scenario 9 sends its
// callbacks) instead of as fast as the 32 connections go: a front that is not saturated wakes for
// nearly every request, and costs several times more per request than one that is.
import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, ROOT } from '../suite/lib.mjs';
import { cpuMsOf } from '../suite/proc-stats.mjs';
const [role, ...rest] = process.argv.slice(2);

/** A core reduced to its answer to a callback: reads the body, answers 200 with a small JSON. */
function serveShard() {
  const answer = Buffer.from(JSON.stringify({ status: 'ok', data: { id: 1 } }));
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': answer.length,
        'x-request-id': 'r',
      });
      res.end(answer);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
}

/** The bare proxy: each request's method, path, headers and body to the shard, its answer back. */
async function serveBare(shardPort) {
  const { Pool } = await import('undici');
  const pool = new Pool(`http://127.0.0.1:${shardPort}`, { connections: 64 });
  const server = http.createServer(async (req, res) => {
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.connection;
    const answer = await pool.request({ method: req.method, path: req.url, headers, body: req });
    const back = { ...answer.headers };
    delete back.connection;
    delete back['keep-alive'];
    res.writeHead(answer.statusCode, back);
    for await (const chunk of answer.body) res.write(chunk);
    res.end();
  });
  listenAndReport(server);
}

/** Listens on a free port, tells the parent, and answers its CPU time when asked. */
function listenAndReport(server) {
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send({ cpu: user + system });
  });
}

/** A front of the build in `dist` before the shard on `shardPort`; answers its CPU time when asked. */
async function serveFront(dist, shardPort) {
  if (dist.endsWith('/bare')) return serveBare(shardPort);
  const { Front } = await import(path.join(dist, 'src/front/front.js'));
  const { FrontMetrics } = await import(path.join(dist, 'src/front/front-metrics.js'));
  const { ShardSet } = await import(path.join(dist, 'src/front/shard-set.js'));
  const { createLogger } = await import(path.join(dist, 'src/log.js'));
  const logger = createLogger('silent');
  const metrics = new FrontMetrics();
  const shardOptions = { connectTimeoutMs: 1000, responseTimeoutMs: 10_000, connections: 64, probeIntervalMs: 500 };
  const shards = new ShardSet([`http://127.0.0.1:${shardPort}`], shardOptions, metrics, logger);
  const front = new Front({
    shards,
    slots: 64,
    metrics,
    logger,
    bodyLimitBytes: 1 << 20,
    uploadHoldBytes: 1 << 24,
    metricsToken: null,
    retryAfterSeconds: 5,
    adminToken: null,
    workerUrls: [],
    address: () => '',
  });
  listenAndReport(http.createServer(front.listener));
}

const reply = (child, pick) =>
  new Promise((resolve) =>
    child.on('message', function onMessage(m) {
      if (pick(m)) {
        child.off('message', onMessage);
        resolve(m);
      }
    }),
  );

/** A Node front (a build, or `bare`) in a child process: its port, its CPU time (µs) when asked, its stop. */
async function startNodeFront(self, dist, shardPort) {
  const child = fork(self, ['front', path.resolve(ROOT, dist), String(shardPort)]);
  const { port } = await reply(child, (m) => m.port !== undefined);
  return {
    port,
    cpu: async () => {
      child.send('cpu');
      return (await reply(child, (m) => m.cpu !== undefined)).cpu;
    },
    stop: () => child.kill(),
  };
}

/**
 * HAProxy (Debian's `haproxy`) as the proxy, one thread, keep-alive to the shard: what an HTTP hop
 * costs outside Node, read from /proc (10 ms ticks, so give it enough requests).
 */
async function startHaproxy(shardPort) {
  const port = await freePort();
  const config = [
    'global',
    '  nbthread 1',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  http-reuse always',
    'frontend front',
    `  bind 127.0.0.1:${port}`,
    '  default_backend shard',
    'backend shard',
    `  server shard 127.0.0.1:${shardPort}`,
  ].join('\n');
  const file = path.join(os.tmpdir(), `front-proxy-haproxy-${process.pid}.cfg`);
  fs.writeFileSync(file, `${config}\n`);
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: 'inherit' });
  for (let tries = 0; ; tries++) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (tries > 50) throw new Error("haproxy did not start (is Debian's haproxy installed?)");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    cpu: async () => cpuMsOf(child.pid) * 1000,
    stop: () => {
      child.kill();
      fs.rmSync(file, { force: true });
    },
  };
}

async function compare([a = 'dist', b = a, rounds = '4', requests = '10000', rate = '0']) {
  const { Pool } = await import('undici');
  const self = fileURLToPath(import.meta.url);
  const shard = fork(self, ['shard']);
  const shardPort = await reply(shard, (m) => typeof m === 'number');
  const message = {
    update_id: 1,
    message: {
      message_id: 5,
      from: { id: 42, first_name: 'A' },
      chat: { id: 42, type: 'private' },
      date: 1_700_000_000,
      text: 'x'.repeat(300),
    },
  };
  const body = Buffer.from(JSON.stringify(message));
  const measure = async (dist) => {
    const front = dist === 'haproxy' ? await startHaproxy(shardPort) : await startNodeFront(self, dist, shardPort);
    const { port } = front;
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 32 });
    const send = async (count) => {
      let sent = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (sent++ < count) {
            const early = Number(rate) > 0 ? started + (sent * 1000) / Number(rate) - performance.now() : 0;
            if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
            const response = await pool.request({
              method: 'POST',
              path: '/callbacks/chat_b/65',
              headers: { 'content-type': 'application/json' },
              body,
            });
            await response.body.dump();
            if (response.statusCode !== 200) throw new Error(`the front answered ${response.statusCode}`);
          }
        }),
      );
    };
    const cpu = () => front.cpu();
    await send(3000);
    const before = await cpu();
    const started = performance.now();
    await send(Number(requests));
    const seconds = (performance.now() - started) / 1000;
    const used = (await cpu()) - before;
    await pool.close();
    front.stop();
    return { us: used / Number(requests), rate: Number(requests) / seconds };
  };
  const runs = { A: [], B: [] };
  for (let round = 1; round <= Number(rounds); round++) {
    for (const [name, dist] of [
      ['A', a],
      ['B', b],
    ]) {
      const run = await measure(dist);
      runs[name].push(run.us);
      console.log(
        `round ${round} ${name} (${dist}): ${run.us.toFixed(1)} µs per request, ${run.rate.toFixed(0)} requests/s`,
      );
    }
  }
  shard.kill();
  const mean = (xs) => xs.reduce((sum, x) => sum + x, 0) / xs.length;
  console.log(
    `front CPU per request: A ${mean(runs.A).toFixed(1)} µs, B ${mean(runs.B).toFixed(1)} µs, B/A ${(mean(runs.B) / mean(runs.A)).toFixed(2)}`,
  );
}

if (role === 'shard') serveShard();
else if (role === 'front') await serveFront(...rest);
else await compare(process.argv.slice(2));
