import { INSERT_DELIVERY, newDeliveryId, type DeliveryInsertValues } from './delivery-insert.js';
import type { Db } from '../engine/db.js';

/** Why a delivery is held: its endpoint is disabled, or an earlier delivery of its strictly ordered endpoint has not ended. */
export type HeldReason = 'endpoint_disabled' | 'ordering';

/** A delivery made by `create`: new, or the one an earlier fan-out of the event made. */
export interface CreatedDelivery {
  id: string;
  /** Held (not to be sent now): as created, or as the earlier fan-out left it. */
  held: boolean;
  /** Still pending and not held: a job of it is owed. */
  owed: boolean;
}

/** What a strictly ordered endpoint has open: a delivery on its way (`busy`), deliveries held (`held`). */
export interface OrderState {
  busy: boolean;
  held: boolean;
}

/**
 * Deliveries held instead of sent (docs/decisions.md, "Delivery order, rate limits, held
 * deliveries"): a held delivery is `pending` with a `held_reason` and no next attempt, until it is
 * released (due at once: the retry scheduler sends it) or discarded. Also the head of each strictly
 * ordered endpoint. The decisions are the outbox's and the dispatcher's; this executes them.
 */
export class HeldDeliveryStore {
  private readonly insertOne;
  private readonly existing;
  private readonly order;
  private readonly markHead;
  private readonly nextEndpoint;
  private readonly oldestOf;
  private readonly releaseOne;
  private readonly holdDue;
  private readonly endAll;
  private readonly countOf;

  constructor(db: Db) {
    this.insertOne = db.prepare<DeliveryInsertValues>(INSERT_DELIVERY);
    this.existing = db.prepare<[string, number], { id: string; status: string; held_reason: string | null }>(
      'SELECT id, status, held_reason FROM webhook_deliveries WHERE event_id = ? AND endpoint_id = ?',
    );
    this.order = db.prepare<{ endpoint_id: number }, { busy: number; held: number }>(
      `SELECT EXISTS (SELECT 1 FROM webhook_endpoints e JOIN webhook_deliveries d ON d.id = e.head_delivery_id
                      WHERE e.id = @endpoint_id AND d.status = 'pending' AND d.held_reason IS NULL) AS busy,
              EXISTS (SELECT 1 FROM webhook_deliveries INDEXED BY webhook_deliveries_held
                      WHERE endpoint_id = @endpoint_id AND status = 'pending' AND held_reason IS NOT NULL) AS held`,
    );
    this.markHead = db.prepare<[string, number]>('UPDATE webhook_endpoints SET head_delivery_id = ? WHERE id = ?');
    this.nextEndpoint = db.prepare<[number], { endpoint_id: number }>(
      `SELECT endpoint_id FROM webhook_deliveries INDEXED BY webhook_deliveries_held
       WHERE status = 'pending' AND held_reason IS NOT NULL AND endpoint_id > ? ORDER BY endpoint_id LIMIT 1`,
    );
    this.oldestOf = db.prepare<[number, number], { id: string }>(
      `SELECT id FROM webhook_deliveries INDEXED BY webhook_deliveries_held
       WHERE endpoint_id = ? AND status = 'pending' AND held_reason IS NOT NULL ORDER BY seq LIMIT ?`,
    );
    this.releaseOne = db.prepare<[number, number, string]>(
      `UPDATE webhook_deliveries SET held_reason = NULL, next_attempt_at = ?, updated_at = ?
       WHERE id = ? AND status = 'pending' AND held_reason IS NOT NULL`,
    );
    // Only if nothing moved the delivery since the scheduler read it (as DeliveryStore.fail).
    this.holdDue = db.prepare<[string, number, string, number]>(
      `UPDATE webhook_deliveries SET held_reason = ?, next_attempt_at = NULL, updated_at = ?
       WHERE id = ? AND status = 'pending' AND next_attempt_at = ?`,
    );
    this.endAll = db.prepare<[string, number, number]>(
      `UPDATE webhook_deliveries SET status = 'failed', held_reason = NULL, last_error = ?, updated_at = ?
       WHERE endpoint_id = ? AND status = 'pending' AND held_reason IS NOT NULL`,
    );
    this.countOf = db.prepare<[number], { n: number }>(
      `SELECT count(*) AS n FROM webhook_deliveries INDEXED BY webhook_deliveries_held
       WHERE endpoint_id = ? AND status = 'pending' AND held_reason IS NOT NULL`,
    );
  }

  /**
   * One delivery of the event to the endpoint, held for `heldReason` or (null) not; an event fanned
   * out again (a relay crash) keeps the delivery it had, and answers what became of it.
   */
  create(
    event: { id: string; name: string; company_id: number },
    endpointId: number,
    heldReason: HeldReason | null,
    now: number,
    eventJson: string,
    traceparent: string | null,
  ): CreatedDelivery {
    const id = newDeliveryId();
    if (
      this.insertOne.run(
        id,
        event.id,
        event.name,
        event.company_id,
        endpointId,
        eventJson,
        heldReason,
        now,
        now,
        traceparent,
      ).changes === 1
    ) {
      return { id, held: heldReason !== null, owed: heldReason === null };
    }
    const row = this.existing.get(event.id, endpointId)!;
    const held = row.status === 'pending' && row.held_reason !== null;
    return { id: row.id, held, owed: row.status === 'pending' && !held };
  }

  /** Whether a strictly ordered endpoint has a delivery on its way (its head, pending and not held) and deliveries held. */
  orderState(endpointId: number): OrderState {
    const row = this.order.get({ endpoint_id: endpointId })!;
    return { busy: row.busy === 1, held: row.held === 1 };
  }

  /** The delivery a strictly ordered endpoint let out: the ones after it wait for it. */
  setHead(endpointId: number, deliveryId: string): void {
    this.markHead.run(deliveryId, endpointId);
  }

  /** The next endpoint (by id, past `afterEndpointId`) with held deliveries, or undefined. */
  nextEndpointWithHeld(afterEndpointId: number): number | undefined {
    return this.nextEndpoint.get(afterEndpointId)?.endpoint_id;
  }

  /** The ids of the endpoint's held deliveries, oldest first. */
  oldest(endpointId: number, limit: number): string[] {
    return this.oldestOf.all(endpointId, limit).map((row) => row.id);
  }

  /** Held deliveries become due now: the retry scheduler hands them to the dispatcher. Answers how many moved. */
  release(ids: readonly string[], now: number): number {
    let released = 0;
    for (const id of ids) released += this.releaseOne.run(now, now, id).changes;
    return released;
  }

  /** A due delivery whose endpoint is disabled waits, held, instead of being attempted. */
  holdDueDelivery(delivery: { id: string; next_attempt_at: number | null }, reason: HeldReason, now: number): void {
    if (delivery.next_attempt_at !== null) this.holdDue.run(reason, now, delivery.id, delivery.next_attempt_at);
  }

  /** Every held delivery of the endpoint fails with `reason` (replayable like any failed one); answers how many. */
  failAll(endpointId: number, reason: string, now: number): number {
    return this.endAll.run(reason, now, endpointId).changes;
  }

  count(endpointId: number): number {
    return this.countOf.get(endpointId)!.n;
  }
}
