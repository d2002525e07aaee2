import type { Migration } from './migration.js';

/**
 * Durable retry schedule in the store (docs/design.md section 7): the core keeps each pending delivery's
 * next attempt time and schedules it with the endpoint as it is when the attempt is due, instead of
 * parking a copy of the job (with its URL and secrets) on a delayed stream. And an index that lets
 * old callback receipts be pruned without scanning them all.
 */
export const retrySchedule: Migration = {
  version: 5,
  name: 'retry schedule of webhook deliveries in the store; callback receipts by age',
  sql: `
    -- Automatic attempts made so far: the step of the retry schedule the next one is at (manual
    -- replays are numbered among all attempts, but never consume the automatic schedule).
    ALTER TABLE webhook_deliveries ADD COLUMN auto_attempts INTEGER NOT NULL DEFAULT 0;
    UPDATE webhook_deliveries SET auto_attempts =
      (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = webhook_deliveries.id AND a.trigger = 'auto');

    -- What the retry scheduler polls: deliveries waiting for their next automatic attempt.
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at)
      WHERE status = 'pending' AND next_attempt_at IS NOT NULL;

    -- Receipts are kept for as long as a provider may repeat a delivery, then pruned oldest first.
    CREATE INDEX callback_receipts_age ON callback_receipts(created_at);
  `,
};
