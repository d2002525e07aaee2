// A webhook receiver on a thread of its own, for the tests that measure when webhooks arrive. The
// test's event loop also runs the gateway, and a loaded machine stalls it now and then: an arrival
// stamped there reads late by the stall, and the next one then reads too close to it. This thread
// runs nothing else, so its stamps are the arrivals' times.
import { Worker } from 'node:worker_threads';

/** What the receiver answers the n-th request (from 1) when it is not a plain 200. */
export type TimedAnswers = Record<number, { status: number; headers?: Record<string, string> }>;

export interface Arrival {
  /** The webhook-id header. */
  id: string;
  /** When the request's body had arrived, in ms on the process's clock (performance.timeOrigin based). */
  at: number;
}

const THREAD = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
let n = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    n += 1;
    const answer = workerData[n] ?? { status: 200 };
    res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
    res.end('answer ' + answer.status);
    parentPort.postMessage({ id: req.headers['webhook-id'], at });
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

/** Starts the receiver; `arrivals` fills as the thread reports them, in the order they came. */
export async function startTimingReceiver(answers: TimedAnswers = {}) {
  const arrivals: Arrival[] = [];
  const worker = new Worker(THREAD, { eval: true, workerData: answers });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (message: Arrival | { port: number }) => {
      if ('port' in message) resolve(message.port);
      else arrivals.push(message);
    });
  });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    async close() {
      await worker.terminate();
    },
  };
}
