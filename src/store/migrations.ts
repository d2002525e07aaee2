import type { Db } from './db.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Versioned schema changes, applied in order at start. Append only: a released migration is never
 * edited, a change is a new entry. Times are unix milliseconds.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, tokens, companies, channels',
    sql: `
      CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE api_tokens (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        token_sha256 TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE companies (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        phone TEXT,
        description TEXT,
        webhook_url TEXT,
        hidden INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX companies_account ON companies(account_id, id);
      CREATE TABLE channels (
        id INTEGER PRIMARY KEY,
        company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        provider TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('unconfirmed', 'enabled', 'disabled')),
        settings TEXT NOT NULL DEFAULT '{}',
        credentials TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        deleted_at INTEGER
      );
      CREATE INDEX channels_company ON channels(company_id, id);
      -- One live channel per provider per company; a deleted one frees the slot.
      CREATE UNIQUE INDEX channels_one_per_provider ON channels(company_id, provider) WHERE deleted_at IS NULL;
    `,
  },
];

/**
 * Applies every migration newer than the store's version, each in its own IMMEDIATE transaction so
 * that two processes starting together (daemon and CLI) apply each one exactly once.
 */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const current = db.prepare<[], { version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    const apply = db.transaction(() => {
      if ((current.get()?.version ?? 0) >= migration.version) return false;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
      return true;
    });
    if (apply.immediate()) applied.push(migration.version);
  }
  return applied;
}

export function schemaVersion(db: Db): number {
  return db.prepare<[], { version: number | null }>('SELECT max(version) AS version FROM schema_migrations').get()?.version ?? 0;
}
