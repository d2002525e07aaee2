import type { Migration } from './migration.js';

/**
 * Idempotency keys of API writes (docs/decisions.md, "Idempotent writes"): the first answer to a
 * POST sent with an `Idempotency-Key`, per account, kept for 24 hours and answered again to a
 * repeat. `fingerprint` is the SHA-256 of the request (method, path, query and body) the key was
 * first used with.
 */
export const idempotencyKeys: Migration = {
  version: 13,
  name: 'idempotency keys of API writes',
  sql: `
    CREATE TABLE idempotency_keys (
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      idempotency_key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      status INTEGER NOT NULL,
      -- the answer's JSON body; null for an answer without one (204)
      body TEXT,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (account_id, idempotency_key)
    ) WITHOUT ROWID;
    CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
  `,
};
