import type { Db } from './db.js';

/**
 * Deliveries whose first attempt went to the embedded stream in memory only
 * (OutgoingMessage.recoverable) and was never sent because the process stopped or died first.
 * Such a delivery is pending, not held, never attempted by the schedule, with no retry scheduled
 * and no job of its own (`<delivery>:1`) in the stream's log.
 */
export class UnsentDeliveryStore {
  constructor(private readonly db: Db) {}

  /**
   * Makes every unsent first attempt due now, so that the retry scheduler sends it (step 1, the
   * same `webhook-id`), and answers how many. Run at start, before the pipeline publishes: a
   * memory-only job of this process would look the same.
   */
  scheduleUnsent(now: number): number {
    // One statement: SQLite reads the log's message ids once into a transient index (NOT IN's list)
    // and probes it per candidate, so a start after a long outage holds no copy of the log in memory.
    return this.db
      .prepare<[number, number]>(
        `UPDATE webhook_deliveries SET next_attempt_at = ?, updated_at = ?
         WHERE status = 'pending' AND held_reason IS NULL AND next_attempt_at IS NULL AND auto_attempts = 0
           AND id || ':1' NOT IN (SELECT message_id FROM stream_messages)`,
      )
      .run(now, now).changes;
  }
}
