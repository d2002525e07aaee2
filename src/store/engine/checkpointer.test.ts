import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, memoryLogger } from '../../../test/helpers/wait.js';
import { WalCheckpointer, type CheckpointReport } from './checkpointer.js';
import { openDatabase, type Db } from './db.js';

let dir: string;
let db: Db;
let file: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-checkpoint-'));
  file = path.join(dir, 'gateway.db');
  db = openDatabase(file);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
});

afterEach(() => {
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * The WAL's frame count and how many of them are in the database file, from the wal-index header
 * in the -shm file (sqlite.org/walformat.html: mxFrame at byte 16, nBackfill at byte 96, native
 * order): read without a connection, so reading it checkpoints nothing.
 */
function walIndex(): { mxFrame: number; nBackfill: number } {
  const header = fs.readFileSync(`${file}-shm`).subarray(0, 136);
  return { mxFrame: header.readUInt32LE(16), nBackfill: header.readUInt32LE(96) };
}

/** Commits `n` transactions of one row of ~2 KiB each (a page or so per commit). */
function commits(n: number): void {
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  for (let i = 0; i < n; i += 1) insert.run('x'.repeat(2_000) + i);
}

describe('WalCheckpointer', () => {
  it('copies the WAL into the database file from its own thread, and the event loop connection no longer checkpoints on commit', async () => {
    const reports: CheckpointReport[] = [];
    const checkpointer = new WalCheckpointer(db, file, 20, memoryLogger().logger, (report) => reports.push(report));
    try {
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(WalCheckpointer.SAFETY_NET_PAGES);
      // More than SQLite's default of 1000 pages: without the thread, the commits themselves would checkpoint.
      commits(1_500);
      await eventually('the thread checkpointed every frame', () => {
        const { mxFrame, nBackfill } = walIndex();
        return mxFrame > 0 && nBackfill === mxFrame;
      });
      await eventually('its report of a whole checkpoint', () =>
        reports.some((r) => r.walFrames > 0 && r.checkpointed === r.walFrames),
      );
      expect(reports.every((r) => r.durationMs >= 0 && r.checkpointed <= r.walFrames)).toBe(true);
      // Once fully copied (and the thread stopped, so that no checkpoint of it is reading the WAL
      // at that moment), the next write starts the WAL over instead of growing it.
      await checkpointer.close();
      const before = walIndex().mxFrame;
      commits(1);
      expect(walIndex().mxFrame).toBeLessThan(before);
      expect(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM t').get()!.n).toBe(1_501);
    } finally {
      await checkpointer.close();
    }
  });

  it('reports nothing while there is nothing to copy, and stops on close', async () => {
    const reports: CheckpointReport[] = [];
    // Written before the thread starts: its first checkpoint finds all of it.
    commits(5);
    const checkpointer = new WalCheckpointer(db, file, 10, memoryLogger().logger, (report) => reports.push(report));
    await eventually('one checkpoint', () => reports.length === 1);
    // Ten of the thread's intervals with nothing to copy, on purpose: what is tested is its silence
    // over them. A write after them is the marker: its checkpoint is the next report.
    await new Promise((resolve) => setTimeout(resolve, 100));
    commits(1);
    await eventually('the checkpoint of the write after the quiet time', () => reports.length >= 2);
    expect(reports).toHaveLength(2);
    // close() waits for the thread to exit: nothing is left to report a checkpoint.
    await checkpointer.close();
    commits(5);
    expect(reports).toHaveLength(2);
  });

  it('falls back to checkpoints on commit, and logs it, when the thread fails', async () => {
    const { logger, text } = memoryLogger();
    // A store file that does not exist: the thread fails to open it.
    const checkpointer = new WalCheckpointer(db, path.join(dir, 'missing.db'), 20, logger);
    try {
      await eventually('the fallback', () => db.pragma('wal_autocheckpoint', { simple: true }) === 1000);
      expect(text()).toContain('the WAL checkpoint thread failed; the store checkpoints on commit again');
    } finally {
      await checkpointer.close();
    }
  });
});
