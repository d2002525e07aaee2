// The WAL checkpoint thread (src/store/engine/checkpointer.ts): its own connection to the store, running a
// PASSIVE checkpoint every interval, which copies committed pages into the database file without
// blocking the event loop's writes. It reports each checkpoint that had frames to copy.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CheckpointReport, CheckpointThreadData } from './checkpointer.js';

const { file, intervalMs } = workerData as CheckpointThreadData;
const port = parentPort!;
const db = new Database(file, { fileMustExist: true });
// Matches the event loop's connection: the checkpoint syncs the WAL before copying and the file after.
db.pragma('synchronous = NORMAL');
// PASSIVE never waits for a lock; a checkpoint that found one busy simply runs at the next interval.
db.pragma('busy_timeout = 0');
// A checkpoint copies frames from the WAL to the file without the page cache: keep it small (2 MiB by default).
db.pragma('cache_size = -256');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
/** The last report's figures: a checkpoint that found them unchanged had nothing to copy. */
let last = { log: -1, checkpointed: -1 };

const timer = setInterval(() => {
  const began = performance.now();
  const row = checkpoint.get() as { busy: number; log: number; checkpointed: number };
  // Nothing new since the last one (or the WAL is empty): nothing to report.
  if (row.log <= 0 || (row.log === last.log && row.checkpointed === last.checkpointed)) return;
  last = row;
  const report: CheckpointReport = {
    walFrames: row.log,
    checkpointed: row.checkpointed,
    durationMs: performance.now() - began,
  };
  port.postMessage(report);
}, intervalMs);

port.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  port.close();
});
