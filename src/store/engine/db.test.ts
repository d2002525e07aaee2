import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from './db.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-db-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A file with an indexed table and the statistics an ANALYZE leaves (sqlite_stat1 and sqlite_stat4). */
function analyzedFile(): string {
  const file = path.join(dir, 'gateway.db');
  const db = new Database(file);
  db.exec(
    'CREATE TABLE t (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL, external_id TEXT NOT NULL, UNIQUE (channel_id, external_id))',
  );
  db.prepare(
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO t (channel_id, external_id) SELECT i % 7, 'x' || i FROM n",
  ).run();
  db.exec('ANALYZE');
  expect(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM sqlite_stat4').get()!.n).toBeGreaterThan(0);
  db.close();
  return file;
}

describe('openDatabase', () => {
  it('deletes the STAT4 samples of an earlier ANALYZE and keeps sqlite_stat1', () => {
    const file = analyzedFile();
    const db = openDatabase(file);
    try {
      expect(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM sqlite_stat4').get()!.n).toBe(0);
      expect(
        db.prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_stat1 WHERE tbl = 't'").get()!.n,
      ).toBeGreaterThan(0);
      // The connection answered is usable with the pragmas set.
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(
        db
          .prepare<[number, string], { id: number }>('SELECT id FROM t WHERE channel_id = ? AND external_id = ?')
          .get(3, 'x3'),
      ).toEqual({ id: 3 });
    } finally {
      db.close();
    }
  });

  it('opens a store without statistics as it is', () => {
    const db = openDatabase(path.join(dir, 'gateway.db'));
    try {
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'sqlite_stat%'").all()).toEqual([]);
    } finally {
      db.close();
    }
  });
});
