import type { OperatorWebhookConfig } from '../config/config.js';
import {
  OPERATIONAL_EVENT_NAMES,
  OPERATOR_COMPANY_ID,
  OPERATOR_ENDPOINT_ID,
  operatorJobEndpoint,
} from '../domain/operational-events.js';
import type { Store } from '../store/store.js';
import type { EventRecord } from '../streams/catalog.js';
import type { OutgoingMessage } from '../streams/stream.js';
import { firstAttempt } from './fan-out.js';

/**
 * The operator webhook's share of an event's fan-out: an operational event (an endpoint disabled or
 * enabled, a delivery failed for good) of any company also becomes one delivery to
 * GATEWAY_OPERATOR_WEBHOOK_URL, signed with GATEWAY_OPERATOR_WEBHOOK_SECRET, and goes through the
 * same dispatcher, retry schedule and replays as any delivery. It is stored under the operator's
 * own endpoint and company ids (0), so no company sees it; it keeps the event's id, so the operator
 * and the company receive the same `webhook-id`. Runs in the relay's transaction, like fanOutEvent.
 */
export function fanOutToOperator(
  store: Store,
  event: EventRecord,
  now: number,
  operator: OperatorWebhookConfig | null,
  eventJson?: string,
  traceparent?: string,
): OutgoingMessage[] {
  if (operator === null || !OPERATIONAL_EVENT_NAMES.has(event.name)) return [];
  const [deliveryId] = store.deliveries.createForEvent(
    { id: event.id, name: event.name, company_id: OPERATOR_COMPANY_ID },
    [{ id: OPERATOR_ENDPOINT_ID }],
    now,
    eventJson ?? JSON.stringify(event),
    traceparent ?? null,
  );
  return [firstAttempt(deliveryId!, event, operatorJobEndpoint(operator), traceparent)];
}
