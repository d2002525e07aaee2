import type { Migration } from './migration.js';

/**
 * The pages an auth's provider offers to connect (communities, business accounts), each with its
 * own integer id as the hosted service's auth pages show them; `enabled` marks the one(s) connected.
 * A new list from the connector replaces the pages not enabled.
 */
export const authPages: Migration = {
  version: 12,
  name: 'auth pages',
  sql: `
    CREATE TABLE auth_pages (
      id INTEGER PRIMARY KEY,
      channel_id INTEGER NOT NULL REFERENCES channels (id),
      company_id INTEGER NOT NULL REFERENCES companies (id),
      external_id TEXT NOT NULL,
      name TEXT NOT NULL,
      username TEXT,
      enabled INTEGER NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (channel_id, external_id)
    );
  `,
};
