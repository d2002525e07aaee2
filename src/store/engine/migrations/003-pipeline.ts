import type { Migration } from './migration.js';

/**
 * The event pipeline: the embedded (SQLite) streams, webhook deliveries with their attempts,
 * endpoint health and bulk replay tasks. Times are unix milliseconds.
 */
export const pipeline: Migration = {
  version: 3,
  name: 'embedded streams, webhook deliveries, attempts, endpoint health, replay tasks',
  sql: `
    -- Embedded streams (used when GATEWAY_KAFKA_BROKERS is unset): one log for every stream.
    CREATE TABLE stream_messages (
      seq INTEGER PRIMARY KEY,
      stream TEXT NOT NULL,
      key TEXT NOT NULL,
      message_id TEXT NOT NULL,             -- stable id: a redelivery or a duplicate publish carries the same
      value TEXT NOT NULL,
      not_before INTEGER NOT NULL,          -- not handed to a consumer before this time
      created_at INTEGER NOT NULL
    );
    CREATE INDEX stream_messages_stream ON stream_messages(stream, seq);

    -- Per consumer group: which messages are claimed (until a lease ends) or committed.
    CREATE TABLE stream_claims (
      group_name TEXT NOT NULL,
      seq INTEGER NOT NULL REFERENCES stream_messages(seq) ON DELETE CASCADE,
      claimed_until INTEGER NOT NULL,
      committed_at INTEGER,
      PRIMARY KEY (group_name, seq)
    ) WITHOUT ROWID;
    CREATE INDEX stream_claims_open ON stream_claims(group_name, seq) WHERE committed_at IS NULL;

    -- One delivery per event per endpoint, created by the core when the event is fanned out.
    CREATE TABLE webhook_deliveries (
      id TEXT PRIMARY KEY,                  -- dlv_<hex>
      seq INTEGER NOT NULL UNIQUE,          -- keyset pagination order
      event_id TEXT NOT NULL,
      event_name TEXT NOT NULL,
      company_id INTEGER NOT NULL,
      endpoint_id INTEGER NOT NULL,
      event TEXT NOT NULL,                  -- the EventRecord as JSON (replays resend it)
      status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempt_count INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER,
      last_status_code INTEGER,
      last_error TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (event_id, endpoint_id)
    );
    CREATE INDEX webhook_deliveries_company ON webhook_deliveries(company_id, seq);
    CREATE INDEX webhook_deliveries_status ON webhook_deliveries(status, seq);

    CREATE TABLE webhook_attempts (
      id TEXT PRIMARY KEY,                  -- att_<hex>, made by the dispatcher: recording is idempotent
      delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
      number INTEGER NOT NULL,
      trigger TEXT NOT NULL CHECK (trigger IN ('auto', 'manual')),
      started_at INTEGER NOT NULL,
      duration_ms INTEGER NOT NULL,
      status_code INTEGER,
      response_body TEXT,                   -- first 4 KiB
      error TEXT,
      outcome TEXT NOT NULL                 -- delivered | retry | failed | gone
    );
    CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, started_at);

    CREATE TABLE webhook_endpoint_health (
      endpoint_id INTEGER PRIMARY KEY REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      last_success_at INTEGER,
      last_failure_at INTEGER,
      failing_since INTEGER,                -- first failure after the last success
      consecutive_failures INTEGER NOT NULL DEFAULT 0,
      disabled_at INTEGER
    );

    CREATE TABLE replay_tasks (
      id TEXT PRIMARY KEY,                  -- rpl_<hex>
      filter TEXT NOT NULL,                 -- JSON
      status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
      total INTEGER NOT NULL DEFAULT 0,
      enqueued INTEGER NOT NULL DEFAULT 0,
      cursor_seq INTEGER NOT NULL DEFAULT 0,
      error TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
  `,
};
