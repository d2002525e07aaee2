import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

/** Opens the store file with the pragmas the whole daemon relies on (DESIGN.md section 4). */
export function openDatabase(file: string): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // The CLI and the daemon share the file; a writer waits for the other instead of failing.
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -24576');
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

/** SQLite's error for a UNIQUE or PRIMARY KEY violation, raised by better-sqlite3. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
