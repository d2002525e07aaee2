import type { Migration } from './migration.js';

/**
 * Provider statuses that arrive before the sender's outcome recorded the provider's id of the
 * message (a provider's `sent`/`delivered` callback can overtake the outcome on gateway.inbound):
 * kept until the outcome names the id, then applied (docs/decisions.md, "Provider connectors").
 */
export const earlyStatuses: Migration = {
  version: 6,
  name: 'statuses that arrive before the send outcome',
  sql: `
    CREATE TABLE early_statuses (
      channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      external_id TEXT NOT NULL,            -- the provider's message id the status names
      status TEXT NOT NULL CHECK (status IN ('sent', 'delivered', 'read', 'error')),
      error TEXT,                           -- JSON: the provider's reason, with 'error'
      created_at INTEGER NOT NULL,
      PRIMARY KEY (channel_id, external_id, status)
    ) WITHOUT ROWID;
    CREATE INDEX early_statuses_age ON early_statuses(created_at);
  `,
};
