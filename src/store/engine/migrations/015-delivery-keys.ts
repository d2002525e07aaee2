import type { Migration } from './migration.js';

/**
 * Fewer B-trees per delivery and per attempt (docs/decisions.md, "Store"): a
 * delivery's `seq` becomes its rowid, so it needs no index of its own, and attempts are kept in
 * one B-tree keyed by their delivery and id instead of a table, its id index and its delivery
 * index. Rows, columns, the other indexes and their names stay as they were.
 *
 * The new tables are filled before the old ones go, and the attempts' new table refers to the new
 * deliveries' table, so dropping the old deliveries cascades into nothing; the rename then points
 * the attempts' foreign key at `webhook_deliveries` again.
 */
export const deliveryKeys: Migration = {
  version: 15,
  name: 'delivery seq as rowid; attempts keyed by delivery',
  sql: `
    CREATE TABLE webhook_deliveries_new (
      seq INTEGER PRIMARY KEY,              -- keyset pagination order
      id TEXT NOT NULL UNIQUE,              -- dlv_<hex>
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
      auto_attempts INTEGER NOT NULL DEFAULT 0,
      traceparent TEXT,
      held_reason TEXT,
      UNIQUE (event_id, endpoint_id)
    );
    INSERT INTO webhook_deliveries_new (seq, id, event_id, event_name, company_id, endpoint_id, event, status, attempt_count,
        next_attempt_at, last_status_code, last_error, created_at, updated_at, auto_attempts, traceparent, held_reason)
      SELECT seq, id, event_id, event_name, company_id, endpoint_id, event, status, attempt_count,
        next_attempt_at, last_status_code, last_error, created_at, updated_at, auto_attempts, traceparent, held_reason
      FROM webhook_deliveries ORDER BY seq;

    -- An attempt's id is made by the dispatcher (att_<hex>); recording the same attempt again is a no-op.
    CREATE TABLE webhook_attempts_new (
      delivery_id TEXT NOT NULL REFERENCES webhook_deliveries_new(id) ON DELETE CASCADE,
      id TEXT NOT NULL,
      number INTEGER NOT NULL,
      trigger TEXT NOT NULL CHECK (trigger IN ('auto', 'manual')),
      started_at INTEGER NOT NULL,
      duration_ms INTEGER NOT NULL,
      status_code INTEGER,
      response_body TEXT,                   -- first 4 KiB
      error TEXT,
      outcome TEXT NOT NULL,                -- delivered | retry | failed | gone
      PRIMARY KEY (delivery_id, id)
    ) WITHOUT ROWID;
    INSERT INTO webhook_attempts_new (delivery_id, id, number, trigger, started_at, duration_ms, status_code, response_body, error, outcome)
      SELECT delivery_id, id, number, trigger, started_at, duration_ms, status_code, response_body, error, outcome FROM webhook_attempts;

    DROP TABLE webhook_attempts;
    DROP TABLE webhook_deliveries;
    ALTER TABLE webhook_deliveries_new RENAME TO webhook_deliveries;
    ALTER TABLE webhook_attempts_new RENAME TO webhook_attempts;

    CREATE INDEX webhook_deliveries_company ON webhook_deliveries(company_id, seq);
    CREATE INDEX webhook_deliveries_status ON webhook_deliveries(status, seq);
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at)
      WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
    CREATE INDEX webhook_deliveries_held ON webhook_deliveries(endpoint_id, seq)
      WHERE status = 'pending' AND held_reason IS NOT NULL;
  `,
};
