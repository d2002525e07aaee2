import { transactionRunner, type Db, type TransactionRunner } from '../engine/db.js';
import { pruneStep, type PruneStep } from '../engine/prune.js';
import { INSERT_DELIVERY, newDeliveryId, type DeliveryInsertValues } from './delivery-insert.js';
import type {
  DeliveryStatus,
  DeliveryRow,
  AttemptToRecord,
  AttemptRow,
  DisableRule,
  AttemptEffects,
} from './delivery-rows.js';
import type { WebhookEndpointRow } from '../resources/webhooks.js';
import {
  EndpointHealthBatch,
  endpointHealthStatements,
  type EndpointHealthStatements,
} from './endpoint-health-batch.js';

/** Webhook deliveries, their attempts and the health of endpoints, as attempts are recorded. */
export class DeliveryStore {
  private readonly insertDelivery;
  private readonly idByEventEndpoint;
  private readonly byId;
  private readonly insertAttempt;
  private readonly updateDelivery;
  private readonly attemptsOf;
  private readonly health: EndpointHealthStatements;
  private readonly disableEndpoint;
  private readonly markDisabledAt;
  private readonly dueRows;
  private readonly markScheduled;
  private readonly giveUp;
  private readonly eventCreated;
  private readonly nextBySeq;
  private readonly deleteFinished;
  private readonly statusOf;

  private readonly inTransaction: TransactionRunner;

  constructor(db: Db) {
    this.inTransaction = transactionRunner(db);
    this.insertDelivery = db.prepare<DeliveryInsertValues>(INSERT_DELIVERY);
    this.idByEventEndpoint = db.prepare<[string, number], { id: string }>(
      'SELECT id FROM webhook_deliveries WHERE event_id = ? AND endpoint_id = ?',
    );
    this.byId = db.prepare<[string], DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?');
    this.statusOf = db.prepare<[string], { status: DeliveryStatus }>(
      'SELECT status FROM webhook_deliveries WHERE id = ?',
    );
    // Nothing for a delivery this store never made (another install's topic): not ours to record.
    this.insertAttempt = db.prepare<AttemptToRecord>(
      `INSERT INTO webhook_attempts (id, delivery_id, number, trigger, started_at, duration_ms, status_code, response_body, error, outcome)
       SELECT @id, @delivery_id, @number, @trigger, @started_at, @duration_ms, @status_code, @response_body, @error, @outcome
       WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = @delivery_id)
       ON CONFLICT (delivery_id, id) DO NOTHING`,
    );
    // A delivered delivery stays delivered (a late or duplicate result does not move it back); a
    // failed manual attempt leaves a delivery the schedule still retries pending, with its
    // next_attempt_at; an automatic attempt of an earlier step than one already recorded (a job run
    // again after a crash) adds its record and changes nothing else.
    this.updateDelivery = db.prepare<{
      status: DeliveryStatus;
      trigger: 'auto' | 'manual';
      step: number | null;
      number: number;
      next_attempt_at: number | null;
      status_code: number | null;
      error: string | null;
      now: number;
      id: string;
    }>(
      `UPDATE webhook_deliveries SET
         status = CASE
           WHEN status = 'delivered' THEN 'delivered'
           WHEN @status = 'delivered' THEN 'delivered'
           WHEN @step < auto_attempts THEN status
           WHEN @trigger = 'manual' AND @status = 'failed' AND status = 'pending' THEN 'pending'
           ELSE @status END,
         next_attempt_at = CASE
           WHEN status = 'delivered' OR @status = 'delivered' THEN NULL
           WHEN @step < auto_attempts THEN next_attempt_at
           WHEN @trigger = 'manual' AND @status = 'failed' AND status = 'pending' THEN next_attempt_at
           ELSE @next_attempt_at END,
         auto_attempts = CASE WHEN @step IS NULL THEN auto_attempts ELSE max(auto_attempts, @step) END,
         attempt_count = max(attempt_count, @number),
         last_status_code = @status_code, last_error = @error, updated_at = @now
       WHERE id = @id`,
    );
    this.eventCreated = db.prepare<[string], { created_at: string | null }>(
      "SELECT json_extract(event, '$.created_at') AS created_at FROM webhook_deliveries WHERE id = ?",
    );
    this.attemptsOf = db.prepare<[string], AttemptRow>(
      'SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY started_at, number',
    );
    this.health = endpointHealthStatements(db);
    this.disableEndpoint = db.prepare<[string, number, number]>(
      'UPDATE webhook_endpoints SET active = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND active = 1',
    );
    // INDEXED BY: without statistics the planner takes the status index, which reads (and sorts)
    // every pending delivery, those in flight too: a poll then costs as much as the backlog is long.
    this.dueRows = db.prepare<[number, number], DeliveryRow>(
      `SELECT * FROM webhook_deliveries INDEXED BY webhook_deliveries_due
       WHERE status = 'pending' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ?
       ORDER BY next_attempt_at LIMIT ?`,
    );
    // Only if nothing moved the delivery since it was read (an attempt recorded, a replay delivered it).
    this.markScheduled = db.prepare<[number, string, number]>(
      `UPDATE webhook_deliveries SET next_attempt_at = NULL, updated_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at = ?`,
    );
    this.giveUp = db.prepare<[string, number, string, number]>(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = ?, updated_at = ?
       WHERE id = ? AND status = 'pending' AND next_attempt_at = ?`,
    );
    this.nextBySeq = db.prepare<[number, number], { key: number; created_at: number }>(
      'SELECT seq AS key, created_at FROM webhook_deliveries WHERE seq > ? ORDER BY seq LIMIT ?',
    );
    // Their attempts go with them (ON DELETE CASCADE). Held deliveries are bound by the retention too.
    this.deleteFinished = db.prepare<[number, number, number]>(
      `DELETE FROM webhook_deliveries WHERE seq > ? AND seq <= ? AND updated_at < ?
         AND (status IN ('delivered', 'failed') OR held_reason IS NOT NULL)`,
    );
    this.markDisabledAt = db.prepare<[number, number]>(
      'UPDATE webhook_endpoint_health SET disabled_at = ? WHERE endpoint_id = ?',
    );
  }

  /**
   * One delivery per endpoint for the event; an event fanned out twice (relay crash) keeps its
   * deliveries. Answers their ids, in the order of `endpoints`. `eventJson` is the event as stored
   * in the outbox (JSON.stringify(event)), when the caller has it already; `traceparent` the trace
   * context of the publish creating them.
   */
  createForEvent(
    event: { id: string; name: string; company_id: number },
    endpoints: readonly Pick<WebhookEndpointRow, 'id'>[],
    now: number,
    eventJson = JSON.stringify(event),
    traceparent: string | null = null,
  ): string[] {
    return endpoints.map((endpoint) => {
      const id = newDeliveryId();
      if (
        this.insertDelivery.run(
          id,
          event.id,
          event.name,
          event.company_id,
          endpoint.id,
          eventJson,
          null,
          now,
          now,
          traceparent,
        ).changes === 1
      )
        return id;
      return this.idByEventEndpoint.get(event.id, endpoint.id)!.id;
    });
  }

  /** When the delivery's event was created (unix ms), or null for an unknown delivery. */
  eventCreatedAt(id: string): number | null {
    const at = this.eventCreated.get(id)?.created_at;
    return typeof at === 'string' ? Date.parse(at) : null;
  }

  find(id: string): DeliveryRow | undefined {
    return this.byId.get(id);
  }

  attempts(deliveryId: string): AttemptRow[] {
    return this.attemptsOf.all(deliveryId);
  }

  /**
   * Records one attempt (idempotent on its id), moves the delivery's status and the endpoint's
   * health, and disables the endpoint when `disableRule` gives a reason. Answers what changed.
   */
  recordAttempt(attempt: AttemptToRecord, now: number, disableRule: DisableRule): AttemptEffects {
    return this.inTransaction.immediate(() => this.applyAttempts([attempt], now, disableRule)) as AttemptEffects;
  }

  /**
   * recordAttempt for each attempt, in order, in the caller's transaction, which makes them atomic:
   * a group-commit unit is a savepoint already, and a second one around these few statements would
   * cost as much as they do. Each endpoint's health row is written once, after its last attempt
   * (EndpointHealthBatch), and ends as writing it attempt by attempt would leave it.
   */
  applyAttempts(attempts: readonly AttemptToRecord[], now: number, disableRule: DisableRule): AttemptEffects {
    const health = new EndpointHealthBatch(this.health);
    const effects: AttemptEffects = { failed: [], disabled: [] };
    for (const attempt of attempts) this.applyAttempt(attempt, now, disableRule, effects, health);
    health.flushAll();
    return effects;
  }

  private applyAttempt(
    attempt: AttemptToRecord,
    now: number,
    disableRule: DisableRule,
    effects: AttemptEffects,
    health: EndpointHealthBatch,
  ): void {
    // Recorded already, or of a delivery this store never made (another install's topic).
    if (this.insertAttempt.run(attempt).changes === 0) return;
    const delivered = attempt.outcome === 'delivered';
    const status: DeliveryStatus = delivered ? 'delivered' : attempt.outcome === 'retry' ? 'pending' : 'failed';
    // Read only for the rare attempts that may fail a delivery, never for a success or a retry.
    const before = status === 'failed' ? this.statusOf.get(attempt.delivery_id)?.status : undefined;
    this.updateDelivery.run({
      status,
      trigger: attempt.trigger,
      step: attempt.step,
      number: attempt.number,
      next_attempt_at: attempt.next_attempt_at,
      status_code: attempt.status_code,
      error: attempt.error,
      now,
      id: attempt.delivery_id,
    });
    if (before !== undefined && before !== 'failed' && this.statusOf.get(attempt.delivery_id)?.status === 'failed')
      effects.failed.push(attempt.delivery_id);
    const endpointId = attempt.endpoint_id;
    if (delivered) {
      health.success(endpointId, attempt.started_at);
      return;
    }
    const reason = disableRule(attempt, health.failure(endpointId, attempt.started_at));
    if (reason === null) return;
    // Disabling writes the health row's disabled_at: the folded health goes first.
    health.flush(endpointId);
    if (this.disable(endpointId, reason, attempt.started_at)) effects.disabled.push({ endpointId, reason });
  }

  /** Deliveries whose next automatic attempt is due at `now`, the longest waiting first. */
  due(now: number, limit: number): DeliveryRow[] {
    return this.dueRows.all(now, limit);
  }

  /**
   * The scheduler handed these due deliveries to the dispatcher: they wait for the attempt's record
   * now, not for the clock. A delivery that moved meanwhile keeps what it got.
   */
  scheduled(deliveries: readonly Pick<DeliveryRow, 'id' | 'next_attempt_at'>[], now: number): void {
    this.inTransaction.immediate(() => {
      for (const delivery of deliveries)
        if (delivery.next_attempt_at !== null) this.markScheduled.run(now, delivery.id, delivery.next_attempt_at);
    });
  }

  /**
   * A due delivery that cannot be attempted any more (its endpoint is gone or disabled) fails,
   * replayable. Answers whether it moved (not when something else moved it since it was read).
   */
  fail(delivery: Pick<DeliveryRow, 'id' | 'next_attempt_at'>, reason: string, now: number): boolean {
    if (delivery.next_attempt_at === null) return false;
    return this.giveUp.run(reason, now, delivery.id, delivery.next_attempt_at).changes > 0;
  }

  /** Answers whether it disabled the endpoint (false when it was disabled or gone already). */
  private disable(endpointId: number, reason: string, at: number): boolean {
    if (this.disableEndpoint.run(reason, at, endpointId).changes === 0) return false;
    this.markDisabledAt.run(at, endpointId);
    return true;
  }

  /**
   * Deletes, with their attempts, the delivered, failed and held deliveries among the next `limit` past
   * `afterSeq` (in seq order, so creation order) whose last change is older than `before`; the scan
   * stops at the first delivery created at `before` or later. Pending ones that are not held stay,
   * however old: their attempts are still owed. Answers the last seq looked at (null: nothing old left) and the count.
   */
  pruneFinished(before: number, afterSeq: number, limit: number): PruneStep {
    return pruneStep(
      this.nextBySeq.all(afterSeq, limit),
      before,
      afterSeq,
      (from, upto) => this.deleteFinished.run(from, upto, before).changes,
    );
  }
}
