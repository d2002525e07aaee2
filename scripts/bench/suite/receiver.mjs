// The webhook receiver of the benchmark, in its own process so that the load generator does not
// slow its answers down: verifies the Standard Webhooks signature of every delivery (the secret of
// company <c> for the path `?c=<c>`), answers 200, and records the message.create events of the load
// with their callback → webhook time (arrivals.mjs). Driven over IPC by sinks.mjs.
// Some endpoints can be told to misbehave (the noisy-neighbour scenario): never answer, or answer 500.
import http from 'node:http';
import { Arrivals, now } from './arrivals.mjs';

const arrivals = new Arrivals();
/** Endpoints (by `c`) that misbehave: `hang` never answer (the sender's timeout ends the attempt), `fail` answer 500. */
let hang = new Set();
let fail = new Set();

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
    if (!arrivals.record(c, raw, req.headers, at)) {
      res.writeHead(400).end('bad signature');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.keepAliveTimeout = 30_000;

process.on('message', (message) => {
  switch (message.type) {
    case 'behaviours':
      hang = new Set(message.hang);
      fail = new Set(message.fail);
      process.send({ type: 'ok' });
      break;
    case 'stop':
      server.closeAllConnections();
      server.close(() => process.exit(0));
      break;
    default:
      process.send(arrivals.answer(message));
  }
});
server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
