// The complete floor's store on a thread of its own (floor-complete.mjs ingest-threaded): the
// event loop of the floor's process reads, verifies, parses and validates each callback, and hands
// the thread each turn's accepted messages in one message; the thread writes them in one group
// commit (floor-writes.mjs) and answers, per callback, its event count (null for a repeat) or the
// error. What splitting a callback's work over two threads gives on this machine: BENCHMARKS.md.
import { parentPort, workerData } from 'node:worker_threads';
import { openFloorStore } from './floor-store.mjs';
import { callbackWriter } from './floor-writes.mjs';

const sql = openFloorStore(workerData.file);
const store = callbackWriter(sql);
let queue = [];

function flush() {
  const batch = queue;
  queue = [];
  const now = Date.now();
  const answers = [];
  sql.begin.run();
  for (const [n, channel, message] of batch) {
    try {
      const events = store(channel, message, now);
      answers.push([n, events === null ? null : events.length]);
    } catch (error) {
      answers.push([n, undefined, error.message]);
    }
  }
  sql.commit.run();
  parentPort.postMessage(answers);
}

// Every message of a turn of this thread's loop in one transaction, as the floor's own group commit.
parentPort.on('message', (items) => {
  if (queue.length === 0) setImmediate(flush);
  for (const item of items) queue.push(item);
});
