import type { Migration } from './migration.js';

/**
 * The browser faces (docs/console.md): sessions of the operator console and of the company portal,
 * the single-use links that open a portal session, and bulk replay tasks that can be cancelled.
 * Tokens are stored as SHA-256 digests only. SQLite cannot change a CHECK constraint in place, so
 * replay_tasks is rebuilt with 'cancelled' among its states (same columns, rows copied).
 */
export const webFaces: Migration = {
  version: 9,
  name: 'console and portal sessions, portal links, cancellable replay tasks',
  sql: `
    CREATE TABLE web_sessions (
      token_sha256 TEXT PRIMARY KEY,
      face TEXT NOT NULL CHECK (face IN ('console', 'portal')),
      -- portal: the company the session is scoped to (and its account); console: null
      account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
      company_id INTEGER REFERENCES companies(id) ON DELETE CASCADE,
      -- console: SHA-256 of the admin token it was opened with (a changed token ends it)
      credential_sha256 TEXT,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      -- the end no renewal moves: created_at plus the longest lifetime of a session
      hard_expires_at INTEGER NOT NULL,
      CHECK ((face = 'portal') = (company_id IS NOT NULL))
    ) WITHOUT ROWID;
    CREATE INDEX web_sessions_expiry ON web_sessions(expires_at);

    CREATE TABLE portal_links (
      token_sha256 TEXT PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at INTEGER
    ) WITHOUT ROWID;
    CREATE INDEX portal_links_expiry ON portal_links(expires_at);

    CREATE TABLE replay_tasks_new (
      id TEXT PRIMARY KEY,                  -- rpl_<hex>
      filter TEXT NOT NULL,                 -- JSON
      status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
      total INTEGER NOT NULL DEFAULT 0,
      enqueued INTEGER NOT NULL DEFAULT 0,
      cursor_seq INTEGER NOT NULL DEFAULT 0,
      error TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    INSERT INTO replay_tasks_new SELECT id, filter, status, total, enqueued, cursor_seq, error, created_at, updated_at FROM replay_tasks;
    DROP TABLE replay_tasks;
    ALTER TABLE replay_tasks_new RENAME TO replay_tasks;
  `,
};
