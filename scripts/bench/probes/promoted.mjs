#!/usr/bin/env node
// What a running daemon's JavaScript keeps past the young generation, by allocation site: the
// inspector's sampling heap profiler with the objects a scavenge freed left out and those a full
// collection freed kept in (`includeObjectsCollectedByMajorGC`). What it lists was promoted, or is
// still alive when the window ends; promotion is what the full collections (and V8's helper
// threads marking concurrently) pay for.
//
//   BENCH_NODE_ARGS=--inspect=127.0.0.1:9230 node scripts/bench/probes/cpu.mjs e2e 12 &
//   node --experimental-websocket scripts/bench/probes/promoted.mjs 9230 --after=9 --seconds=4 [--out=<file>.heapprofile]
//
// --after: seconds to wait once the inspector answers (past the daemon's start and warm-up);
// --seconds: the sampling window; --all: every allocation, those a scavenge freed too (what the
// young generation's collections are paid for). Prints the sites by bytes (the first 25, ROWS=<n>
// for more), each with its three callers. The inspector serves the daemon's event loop only (worker
// threads are not sampled).
import fs from 'node:fs';
import { parseArgs } from 'node:util';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    after: { type: 'string', default: '9' },
    seconds: { type: 'string', default: '4' },
    out: { type: 'string' },
    all: { type: 'boolean', default: false },
  },
});
const port = Number(positionals[0]);
if (!Number.isInteger(port) || port <= 0)
  throw new Error('give the inspector port: promoted.mjs <port> [--after=s] [--seconds=s]');
if (typeof WebSocket !== 'function')
  throw new Error('run with node --experimental-websocket (Node 20 has no WebSocket client without it)');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const target = await inspectorTarget(port, 60_000);
await sleep(Number(options.after) * 1000);
const inspector = await connect(target);
await inspector.call('HeapProfiler.enable');
await inspector.call('HeapProfiler.startSampling', {
  samplingInterval: 2048,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: options.all,
});
await sleep(Number(options.seconds) * 1000);
const { profile } = await inspector.call('HeapProfiler.getSamplingProfile');
await inspector.call('HeapProfiler.stopSampling');
inspector.close();
if (options.out) fs.writeFileSync(options.out, JSON.stringify(profile));
report(profile, Number(process.env.ROWS ?? 25));

/** The inspector's first target (the daemon's event loop), once it answers. */
async function inspectorTarget(inspectorPort, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const [first] = await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json();
      if (first?.webSocketDebuggerUrl) return first.webSocketDebuggerUrl;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no inspector on port ${inspectorPort} within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

/** A DevTools protocol session: `call` answers a method's result, or throws its error. */
async function connect(url) {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)), { once: true });
  });
  const waiting = new Map();
  let lastId = 0;
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    const settle = waiting.get(message.id);
    if (settle === undefined) return;
    waiting.delete(message.id);
    settle(message);
  });
  return {
    call: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = (lastId += 1);
        waiting.set(id, (message) =>
          message.error ? reject(new Error(`${method}: ${message.error.message}`)) : resolve(message.result),
        );
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

/** The sampled bytes by allocating function, with the three frames that called it. */
function report(sampled, rows) {
  const bySite = new Map();
  let total = 0;
  const walk = (node, callers) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const frame = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${lineNumber + 1}`;
    if (node.selfSize > 0) {
      total += node.selfSize;
      const site = [frame, ...callers.slice(0, 3)].join(' < ');
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, [frame, ...callers]);
  };
  walk(sampled.head, []);
  console.log(`${options.all ? 'allocated' : 'promoted or still alive'}: ${(total / 1e6).toFixed(1)} MB sampled`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(
      `${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${(bytes / 1e6).toFixed(2).padStart(6)} MB  ${site}`,
    );
  }
}
