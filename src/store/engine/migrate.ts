import type { Db } from './db.js';
import type { Migration } from './migrations/migration.js';
import { MIGRATIONS } from './migrations/index.js';

export type { Migration };
export { MIGRATIONS };

/**
 * Applies every migration the store has not recorded yet, in version order, each in its own
 * IMMEDIATE transaction so that two processes starting together (daemon and CLI) apply each one
 * exactly once. A version below the newest applied one still runs when it is missing: migrations
 * written side by side may land in either order.
 */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const isApplied = db.prepare<[number], { version: number }>(
    'SELECT version FROM schema_migrations WHERE version = ?',
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    const apply = db.transaction(() => {
      if (isApplied.get(migration.version) !== undefined) return false;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
      return true;
    });
    if (apply.immediate()) applied.push(migration.version);
  }
  return applied;
}

export function schemaVersion(db: Db): number {
  return (
    db.prepare<[], { version: number | null }>('SELECT max(version) AS version FROM schema_migrations').get()
      ?.version ?? 0
  );
}
