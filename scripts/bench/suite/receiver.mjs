// The webhook receiver of the benchmark, in its own process so that the load generator does not
// slow its answers down: verifies the Standard Webhooks signature of every delivery (the secret of
// company <c> for the path `?c=<c>`), answers 200, and records the message.create events of the load
// (text `b:<n>:<send time, epoch ms>`) with their callback → webhook time. Driven over IPC by sinks.mjs.
// Some endpoints can be told to misbehave (the noisy-neighbour scenario): never answer, or answer 500.
//
// It shares the machine's two cores with the daemon, as no real receiver would, so it verifies with
// node:crypto's HMAC (about 4 µs a delivery) rather than the standardwebhooks package's pure-JS
// SHA-256 (about 28 µs): the same check (the spec's signed content, key and timestamp tolerance).
// Every 64th delivery is verified by the package too, and a disagreement counts as a bad signature.
import crypto from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';

const now = () => performance.timeOrigin + performance.now();
/** The Standard Webhooks tolerance for the timestamp, seconds either way. */
const TOLERANCE_S = 5 * 60;
const CROSS_CHECK_EVERY = 64;
let verifiers = [];
let seen = 0;

/** A verifier of one secret (`whsec_<base64 key>`): throws unless some `v1,` signature matches. */
function verifier(secret) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const reference = new Webhook(secret);
  return (raw, headers) => {
    const id = headers['webhook-id'];
    const timestamp = headers['webhook-timestamp'];
    const signatures = headers['webhook-signature'];
    if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string')
      throw new Error('missing headers');
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_S) throw new Error('timestamp out of tolerance');
    const expected = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${raw}`).digest();
    const ok = signatures.split(' ').some((entry) => {
      if (!entry.startsWith('v1,')) return false;
      const given = Buffer.from(entry.slice(3), 'base64');
      return given.length === expected.length && crypto.timingSafeEqual(given, expected);
    });
    if (!ok) throw new Error('no matching signature');
    // The package checks the same delivery now and then: the two must agree.
    if (++seen % CROSS_CHECK_EVERY === 0) reference.verify(raw, headers);
  };
}
/** Endpoints (by `c`) that misbehave: `hang` never answer (the sender's timeout ends the attempt), `fail` answer 500. */
let hang = new Set();
let fail = new Set();
let expected = [];
const state = { ids: new Set(), arrived: new Map(), replayed: new Set(), bad: 0, lastArrival: 0, hooks: 0 };

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = now();
    const raw = Buffer.concat(chunks).toString('utf8');
    const c = Number(new URL(req.url, 'http://x').searchParams.get('c') ?? 0);
    if (hang.has(c)) return;
    if (fail.has(c)) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('failing on purpose');
      return;
    }
    try {
      verifiers[c](raw, req.headers);
    } catch {
      state.bad += 1;
      res.writeHead(400).end('bad signature');
      return;
    }
    state.hooks += 1;
    state.ids.add(req.headers['webhook-id']);
    state.lastArrival = at;
    const body = JSON.parse(raw);
    const text = body?.object?.message;
    if (body.type === 'message' && typeof text === 'string') {
      if (text.startsWith('b:')) {
        const [, n, sent] = text.split(':');
        if (!state.arrived.has(Number(n))) state.arrived.set(Number(n), at - Number(sent));
      } else if (text.startsWith('r:')) {
        state.replayed.add(text);
      }
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.keepAliveTimeout = 30_000;

process.on('message', (message) => {
  switch (message.type) {
    case 'secrets':
      verifiers = message.secrets.map(verifier);
      process.send({ type: 'ok' });
      break;
    case 'behaviours':
      hang = new Set(message.hang);
      fail = new Set(message.fail);
      process.send({ type: 'ok' });
      break;
    case 'reset':
      state.ids.clear();
      state.arrived.clear();
      state.replayed.clear();
      expected = [];
      Object.assign(state, { bad: 0, lastArrival: 0, hooks: 0 });
      process.send({ type: 'ok' });
      break;
    case 'expect':
      expected = message.expect;
      process.send({ type: 'ok' });
      break;
    case 'status': {
      const missing = expected.filter((n) => !state.arrived.has(n)).length;
      process.send({
        type: 'status',
        missing,
        arrived: state.arrived.size,
        replayed: state.replayed.size,
        bad: state.bad,
        hooks: state.hooks,
        ids: state.ids.size,
        lastArrival: state.lastArrival,
      });
      break;
    }
    case 'latencies':
      process.send({ type: 'latencies', latencies: message.of.map((n) => state.arrived.get(n) ?? null) });
      break;
    case 'stop':
      server.closeAllConnections();
      server.close(() => process.exit(0));
      break;
  }
});
server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
