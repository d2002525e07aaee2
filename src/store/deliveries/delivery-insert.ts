import { timeOrderedId } from '../../lib/ids.js';

/** A new delivery's id: time-ordered, so that a busy table's inserts stay on few pages of its key. */
export function newDeliveryId(): string {
  return timeOrderedId('dlv_', 6);
}

/** id, event_id, event_name, company_id, endpoint_id, event (JSON), held_reason, created_at, updated_at, traceparent. */
export type DeliveryInsertValues = [
  string,
  string,
  string,
  number,
  number,
  string,
  string | null,
  number,
  number,
  string | null,
];

/**
 * One delivery of an event to an endpoint, `pending`, held for a reason or not (held_reason NULL);
 * an event fanned out again (a relay crash) keeps the delivery it had: `changes` is 0. No RETURNING:
 * SQLite collects returned rows in a temporary table, built and torn down on every call; the id is
 * ours, so `changes` says whether the row is new.
 */
export const INSERT_DELIVERY = `INSERT INTO webhook_deliveries (id, seq, event_id, event_name, company_id, endpoint_id, event, status, held_reason, created_at, updated_at, traceparent)
  VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM webhook_deliveries), ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)
  ON CONFLICT (event_id, endpoint_id) DO NOTHING`;
