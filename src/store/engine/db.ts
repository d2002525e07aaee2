import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

/** Opens the store file with the pragmas the whole daemon relies on (docs/design.md section 4). */
export function openDatabase(file: string): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = connect(file);
  if (!dropStat4Samples(db)) return db;
  // The planner reads the statistics when it loads the schema: a new connection has none of the samples.
  db.close();
  return connect(file);
}

function connect(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // The CLI and the daemon share the file; a writer waits for the other instead of failing.
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -16384');
  // Statement and savepoint journals (a group commit opens a savepoint per callback) and temporary
  // tables in memory instead of temp files. They never serve durability: a crash discards them.
  db.pragma('temp_store = MEMORY');
  return db;
}

/** A transaction function that runs the function it is given (see `transactionRunner`). */
export type TransactionRunner = Database.Transaction<(fn: () => unknown) => unknown>;

/**
 * One transaction function for every call: `db.transaction(fn)` builds four wrapper functions
 * each time it is called, which on a hot path costs more than the statements inside. Nested in
 * another transaction, a call is a savepoint.
 */
export function transactionRunner(db: Db): TransactionRunner {
  return db.transaction((fn: () => unknown) => fn());
}

/**
 * Deletes the rows of sqlite_stat4 that an ANALYZE (the operator's, or the bench's prefill) left,
 * keeping sqlite_stat1; answers whether there were any. With STAT4
 * samples present (this build has SQLITE_ENABLE_STAT4) SQLite marks every bound parameter compared
 * with a sampled index column as plan-relevant and re-prepares the statement (parse, plan, code)
 * whenever a different value is bound: every callback re-prepared its contact, conversation and
 * message lookups, about 150 µs of CPU per callback on a store of 5 million messages. The store's
 * statements are all lookups by key, for which sqlite_stat1 is all the planner needs. An ANALYZE
 * run while the daemon runs brings the samples back until the next start (docs/decisions.md).
 */
function dropStat4Samples(db: Db): boolean {
  const table = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat4'").get();
  if (table === undefined || db.prepare('SELECT 1 FROM sqlite_stat4 LIMIT 1').get() === undefined) return false;
  db.exec('DELETE FROM sqlite_stat4');
  return true;
}

/** SQLite's error for a UNIQUE or PRIMARY KEY violation, raised by better-sqlite3. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
