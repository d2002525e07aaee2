import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from './db.js';
import { MIGRATIONS, migrate, schemaVersion, type Migration } from './migrate.js';

let dir: string;
const open: Db[] = [];

function db(): Db {
  const connection = openDatabase(path.join(dir, 'gateway.db'));
  open.push(connection);
  return connection;
}

const versions = (connection: Db) =>
  connection
    .prepare<[], { version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version')
    .all();

const tables = (connection: Db) =>
  connection
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all()
    .map((t) => t.name);

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-migrations-'));
});

afterEach(() => {
  for (const connection of open.splice(0)) if (connection.open) connection.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('MIGRATIONS', () => {
  it('has unique, ascending, positive versions and non-empty names', () => {
    const list = MIGRATIONS.map((m) => m.version);
    expect(list.length).toBeGreaterThan(0);
    expect(new Set(list).size).toBe(list.length);
    expect([...list].sort((a, b) => a - b)).toEqual(list);
    for (const m of MIGRATIONS) {
      expect(Number.isInteger(m.version) && m.version > 0).toBe(true);
      expect(m.name.trim()).not.toBe('');
    }
  });
});

describe('migrate', () => {
  it('applies every migration to a fresh store', () => {
    const connection = db();
    expect(tables(connection)).toEqual([]);
    const applied = migrate(connection);
    expect(applied).toEqual(MIGRATIONS.map((m) => m.version));
    expect(schemaVersion(connection)).toBe(Math.max(...MIGRATIONS.map((m) => m.version)));
    expect(versions(connection)).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    expect(tables(connection)).toEqual(
      expect.arrayContaining(['accounts', 'api_tokens', 'companies', 'channels', 'schema_migrations']),
    );
  });

  it('applies nothing the second time', () => {
    const connection = db();
    migrate(connection);
    const before = versions(connection);
    expect(migrate(connection)).toEqual([]);
    expect(versions(connection)).toEqual(before);
    // A second connection (another process) finds the store up to date as well.
    expect(migrate(db())).toEqual([]);
    expect(versions(connection)).toEqual(before);
  });

  it('applies only the migrations newer than the store', () => {
    const connection = db();
    const first: Migration[] = [{ version: 1, name: 'one', sql: 'CREATE TABLE one (x INTEGER)' }];
    const more: Migration[] = [
      ...first,
      { version: 3, name: 'three', sql: 'CREATE TABLE three (x INTEGER)' },
      { version: 2, name: 'two', sql: 'CREATE TABLE two (x INTEGER)' },
    ];
    expect(migrate(connection, first)).toEqual([1]);
    expect(migrate(connection, more)).toEqual([2, 3]);
    expect(schemaVersion(connection)).toBe(3);
    expect(versions(connection).map((v) => v.version)).toEqual([1, 2, 3]);
    expect(tables(connection)).toEqual(expect.arrayContaining(['one', 'two', 'three']));
  });

  it('applies a missing migration older than the newest applied one', () => {
    const connection = db();
    const one: Migration = { version: 1, name: 'one', sql: 'CREATE TABLE one (x INTEGER)' };
    const two: Migration = { version: 2, name: 'two', sql: 'CREATE TABLE two (x INTEGER)' };
    const three: Migration = { version: 3, name: 'three', sql: 'CREATE TABLE three (x INTEGER)' };
    expect(migrate(connection, [one, three])).toEqual([1, 3]);
    expect(migrate(connection, [one, two, three])).toEqual([2]);
    expect(versions(connection).map((v) => v.version)).toEqual([1, 2, 3]);
    expect(tables(connection)).toEqual(expect.arrayContaining(['one', 'two', 'three']));
    expect(migrate(connection, [one, two, three])).toEqual([]);
  });

  it('rolls a failing migration back and leaves the version unchanged', () => {
    const connection = db();
    const good: Migration = {
      version: 1,
      name: 'good',
      sql: 'CREATE TABLE good (x INTEGER); INSERT INTO good VALUES (1);',
    };
    const bad: Migration = {
      version: 2,
      name: 'bad',
      sql: 'CREATE TABLE half_done (x INTEGER); INSERT INTO good VALUES (2); INSERT INTO no_such_table VALUES (1);',
    };
    const later: Migration = { version: 3, name: 'later', sql: 'CREATE TABLE later (x INTEGER)' };
    expect(() => migrate(connection, [good, bad, later])).toThrow(/no_such_table/);
    expect(schemaVersion(connection)).toBe(1);
    expect(versions(connection).map((v) => v.version)).toEqual([1]);
    expect(tables(connection)).not.toContain('half_done');
    expect(tables(connection)).not.toContain('later');
    expect(connection.prepare('SELECT x FROM good ORDER BY x').all()).toEqual([{ x: 1 }]);
    expect(connection.inTransaction).toBe(false);

    // Fixed, it applies on the next start.
    const fixed: Migration = { ...bad, sql: 'CREATE TABLE half_done (x INTEGER)' };
    expect(migrate(connection, [good, fixed, later])).toEqual([2, 3]);
    expect(schemaVersion(connection)).toBe(3);
  });

  it('leaves a fresh store at version 0 when the first migration fails', () => {
    const connection = db();
    expect(() =>
      migrate(connection, [{ version: 1, name: 'broken', sql: 'CREATE TABLE a (x INTEGER); SELECT * FROM nope;' }]),
    ).toThrow();
    expect(schemaVersion(connection)).toBe(0);
    expect(tables(connection)).toEqual(['schema_migrations']);
  });

  it('applies each version exactly once when two connections migrate one after the other', () => {
    const a = db();
    const b = db();
    const list: Migration[] = [
      { version: 1, name: 'one', sql: 'CREATE TABLE one (x INTEGER)' },
      { version: 2, name: 'two', sql: 'CREATE TABLE two (x INTEGER)' },
    ];
    // b has looked at the store (and would have seen version 0) before a migrates.
    expect(
      schemaVersion(
        b.exec(
          'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
        ),
      ),
    ).toBe(0);
    const fromA = migrate(a, list);
    const fromB = migrate(b, list);
    expect([...fromA, ...fromB].sort()).toEqual([1, 2]);
    expect(versions(a).map((v) => v.version)).toEqual([1, 2]);
  });
});

/**
 * Real concurrency: several worker threads, each with its own connection to the same file, start
 * migrating at the same instant. The workers run the compiled db.js and migrate.js.
 */
describe('migrate from concurrent connections', () => {
  // The compiled modules (npm test builds before running): the very code the daemon runs.
  const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/src/store/engine');

  const workerSource = `
    const { workerData, parentPort } = require('node:worker_threads');
    (async () => {
      const { openDatabase } = await import(workerData.dbModule);
      const { migrate } = await import(workerData.migrationsModule);
      const db = openDatabase(workerData.file);
      const gate = new Int32Array(workerData.gate);
      Atomics.add(gate, 1, 1);
      Atomics.wait(gate, 0, 0);
      try {
        parentPort.postMessage({ applied: migrate(db, workerData.migrations ?? undefined) });
      } catch (error) {
        parentPort.postMessage({ error: String(error && error.message) });
      } finally {
        db.close();
      }
    })();
  `;

  async function race(count: number, migrations: Migration[] | null): Promise<number[][]> {
    const gate = new SharedArrayBuffer(8);
    const flags = new Int32Array(gate);
    const workers = Array.from(
      { length: count },
      () =>
        new Worker(workerSource, {
          eval: true,
          workerData: {
            dbModule: pathToFileURL(path.join(dist, 'db.js')).href,
            migrationsModule: pathToFileURL(path.join(dist, 'migrate.js')).href,
            file: path.join(dir, 'gateway.db'),
            migrations,
            gate,
          },
        }),
    );
    const results = workers.map(
      (worker) =>
        new Promise<number[]>((resolve, reject) => {
          worker.once('message', (message: { applied?: number[]; error?: string }) =>
            message.error === undefined ? resolve(message.applied!) : reject(new Error(message.error)),
          );
          worker.once('error', reject);
        }),
    );
    try {
      // Wait until every worker has its connection open, then release them all at once.
      const deadline = Date.now() + 20_000;
      while (Atomics.load(flags, 1) < count) {
        if (Date.now() > deadline) throw new Error('workers did not start');
        await new Promise((r) => setTimeout(r, 5));
      }
      Atomics.store(flags, 0, 1);
      Atomics.notify(flags, 0);
      return await Promise.all(results);
    } finally {
      await Promise.all(workers.map((w) => w.terminate()));
    }
  }

  it('applies each version of the real migrations exactly once', async () => {
    const results = await race(4, null);
    const all = results.flat().sort((a, b) => a - b);
    expect(all).toEqual(MIGRATIONS.map((m) => m.version));
    const connection = db();
    expect(versions(connection)).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  });

  it('applies each of many slow migrations exactly once', async () => {
    // Each migration creates a table (a second apply would fail) and writes enough rows to take a moment.
    const list: Migration[] = Array.from({ length: 8 }, (_, i) => ({
      version: i + 1,
      name: `m${i + 1}`,
      sql: `CREATE TABLE t${i + 1} (x INTEGER);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 20000) INSERT INTO t${i + 1} SELECT x FROM n;`,
    }));
    const results = await race(6, list);
    const all = results.flat().sort((a, b) => a - b);
    expect(all).toEqual(list.map((m) => m.version));
    const connection = db();
    expect(versions(connection).map((v) => v.version)).toEqual(list.map((m) => m.version));
    for (const m of list) {
      expect(connection.prepare(`SELECT count(*) AS n FROM t${m.version}`).get()).toEqual({ n: 20000 });
    }
  });
});

describe('migration 9 (browser faces)', () => {
  it('keeps the replay tasks of a store made before it, and lets a task be cancelled after it', () => {
    const connection = db();
    migrate(
      connection,
      MIGRATIONS.filter((m) => m.version < 9),
    );
    connection
      .prepare(
        "INSERT INTO replay_tasks (id, filter, status, total, enqueued, cursor_seq, created_at, updated_at) VALUES ('rpl_old', '{}', 'running', 7, 3, 42, 1, 2)",
      )
      .run();
    expect(() => connection.prepare("UPDATE replay_tasks SET status = 'cancelled'").run()).toThrow(
      /CHECK constraint failed/,
    );
    expect(migrate(connection)).toEqual([9, ...MIGRATIONS.filter((m) => m.version > 9).map((m) => m.version)]);
    expect(connection.prepare('SELECT * FROM replay_tasks').all()).toEqual([
      {
        id: 'rpl_old',
        filter: '{}',
        status: 'running',
        total: 7,
        enqueued: 3,
        cursor_seq: 42,
        error: null,
        created_at: 1,
        updated_at: 2,
      },
    ]);
    connection.prepare("UPDATE replay_tasks SET status = 'cancelled'").run();
    expect(tables(connection)).toEqual(expect.arrayContaining(['web_sessions', 'portal_links', 'replay_tasks']));
  });
});
