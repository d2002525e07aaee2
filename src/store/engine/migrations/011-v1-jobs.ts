import type { Migration } from './migration.js';

/**
 * The delivery jobs of v1 write-first (`POST /p1/companies/<id>/channels/<id>/conversations`): the
 * integer id the answer, `GET .../jobs/<id>` and the `job.executed` webhook name, the send job it
 * stands for (its id is the connector's idempotency key), and its state: `trying_deliver` until the
 * sender's outcome, then `delivered` or `not_delivered` with the provider's reason.
 */
export const v1Jobs: Migration = {
  version: 11,
  name: 'v1 write-first delivery jobs',
  sql: `
    CREATE TABLE v1_jobs (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      conversation_id INTEGER NOT NULL,
      message_id INTEGER NOT NULL UNIQUE REFERENCES messages(id) ON DELETE CASCADE,
      send_job_id TEXT NOT NULL UNIQUE,
      state TEXT NOT NULL CHECK (state IN ('trying_deliver', 'delivered', 'not_delivered')),
      reason TEXT,                          -- with not_delivered: the provider's words
      created_at INTEGER NOT NULL,
      finished_at INTEGER
    );
    CREATE INDEX v1_jobs_channel ON v1_jobs(channel_id);
  `,
};
