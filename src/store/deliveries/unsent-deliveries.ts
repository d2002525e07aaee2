import type { Db } from '../engine/db.js';

/**
 * Deliveries whose automatic attempt (the first, or a retry the scheduler handed out) went to the
 * embedded stream in memory only (OutgoingMessage.recoverable) and was never sent, or never
 * recorded, because the process stopped or died first. Such a delivery is pending, not held, with
 * no next attempt scheduled and no automatic job of its own (`<delivery>:<n>`; a manual one is
 * `<delivery>:manual:<n>`) in the stream's log.
 */
export class UnsentDeliveryStore {
  constructor(private readonly db: Db) {}

  /**
   * Makes every unsent automatic attempt due now, so that the retry scheduler sends it (the step
   * after the last recorded one, the same `webhook-id`), and answers how many. Run at start, before
   * the pipeline publishes: a memory-only job of this process would look the same.
   */
  scheduleUnsent(now: number): number {
    // One statement: SQLite reads the delivery ids of the log's automatic jobs once into a transient
    // index (NOT IN's list) and probes it per candidate, so a start after a long outage holds no
    // copy of the log in memory. Delivery ids hold no ':'.
    return this.db
      .prepare<[number, number]>(
        `UPDATE webhook_deliveries SET next_attempt_at = ?, updated_at = ?
         WHERE status = 'pending' AND held_reason IS NULL AND next_attempt_at IS NULL
           AND id NOT IN (SELECT substr(message_id, 1, instr(message_id, ':') - 1) FROM stream_messages
                          WHERE message_id LIKE 'dlv%:%' AND message_id NOT LIKE '%:manual:%')`,
      )
      .run(now, now).changes;
  }
}
