// The complete deliver floor's sender on a thread of its own (floor-complete.mjs deliver),
// as the daemon posts its webhooks from a poster thread: the event loop hands the thread each
// turn's committed events in one message; the thread signs and sends them (floor-deliver.mjs), in
// order per endpoint, and hands back each turn's 2xx answers in one message, which the event loop
// records in its next group commit. What the second core gives plain code: BENCHMARKS.md.
import { parentPort, workerData } from 'node:worker_threads';
import { endpointSender, loadKeys } from './floor-deliver.mjs';

let answers = [];
const flush = () => {
  parentPort.postMessage(answers);
  answers = [];
};
const deliver = endpointSender({
  receiverUrl: workerData.receiverUrl,
  keys: loadKeys(workerData.secretsFile),
  answered: (e, statusCode, startedAt, durationMs, answer) => {
    if (answers.push([e.id, e.companyId, e.endpoint, e.createdAt, statusCode, startedAt, durationMs, answer]) === 1)
      setImmediate(flush);
  },
});

parentPort.on('message', (events) => {
  for (const [id, json, companyId, endpoint, createdAt] of events)
    deliver({ id, json, companyId, endpoint, createdAt });
});
