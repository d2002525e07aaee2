#!/usr/bin/env node
// Which B-trees a running daemon's commits write: its WAL read while it runs (wal.mjs), counted per
// commit. A commit writes one frame per page it changed, in two writes each (header, page), and
// that is most of what a group commit costs the event loop beyond its statements. store-path.mjs
// --pages gives the same per callback for the store alone; this is the daemon's, at the commit
// sizes its load makes.
//
//   BENCH_KEEP=1 node scripts/bench/probes/cpu.mjs e2e 10 &
//   sleep 9; node scripts/bench/probes/wal-frames.mjs /tmp/gateway-cpu-<...>      the run's data dir
import path from 'node:path';
import Database from 'better-sqlite3';
import { walFramesByBtree } from './wal.mjs';

const [dataDir] = process.argv.slice(2);
if (!dataDir) throw new Error('give the data dir of a running daemon: wal-frames.mjs <dir>');
const dbFile = path.join(dataDir, 'gateway.db');
const db = new Database(dbFile, { readonly: true, fileMustExist: true });
const { total, commits, byBtree } = walFramesByBtree(`${dbFile}-wal`, db);
db.close();
if (commits === 0) throw new Error('no whole commit in the WAL yet');
console.log(
  `${total} frames in ${commits} commits: ${(total / commits).toFixed(1)} per commit, by table or index (frames per commit, share, distinct pages):`,
);
for (const [name, { frames, pages }] of byBtree) {
  console.log(
    `${(frames / commits).toFixed(2).padStart(8)}  ${((frames / total) * 100).toFixed(1).padStart(5)} %  ${String(pages).padStart(6)}  ${name}`,
  );
}
