import type { Migration } from './migration.js';

/**
 * The directory's outbox: each change to an account or an API token, written in the transaction
 * that makes it, until it is published on the cluster's directory topic (docs/scaling.md). A NULL
 * value removes the key. Rows leave once published.
 */
export const directory: Migration = {
  version: 17,
  name: 'directory changes',
  sql: `
    CREATE TABLE directory_changes (
      id INTEGER PRIMARY KEY,
      key TEXT NOT NULL,
      value TEXT,
      created_at INTEGER NOT NULL
    );
  `,
};
