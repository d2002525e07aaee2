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
    const queued = new Set(this.db.prepare<[], string>('SELECT message_id FROM stream_messages').pluck().all());
    const unsent = this.db
      .prepare<[], string>("SELECT id FROM webhook_deliveries WHERE status = 'pending' AND held_reason IS NULL AND next_attempt_at IS NULL AND auto_attempts = 0")
      .pluck();
    const markDue = this.db.prepare<[number, number, string]>('UPDATE webhook_deliveries SET next_attempt_at = ?, updated_at = ? WHERE id = ?');
    return this.db
      .transaction(() => {
        let due = 0;
        for (const id of unsent.all()) {
          if (queued.has(`${id}:1`)) continue;
          markDue.run(now, now, id);
          due += 1;
        }
        return due;
      })
      .immediate();
  }
}
