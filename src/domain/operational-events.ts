import type { OperatorWebhookConfig } from '../config/config.js';
import { presentDelivery } from '../presenters/admin.js';
import { presentWebhook } from '../presenters/webhook.js';
import type { AttemptEffects } from '../store/deliveries/delivery-rows.js';
import type { Store } from '../store/store.js';
import type { WebhookEndpointChanges, WebhookEndpointRow } from '../store/resources/webhooks.js';
import type { EventRecord, JobEndpoint } from '../streams/catalog.js';
import { recordEvent } from './events.js';

/**
 * The operational events (docs/decisions.md, "Operational events"): an endpoint disabled or enabled
 * again, a delivery failed for good. Each is written to the outbox in the transaction of the change
 * it reports, goes to the company's endpoints that want it like any event, and to the operator
 * webhook when one is configured.
 */
export const OPERATIONAL_EVENT_NAMES: ReadonlySet<string> = new Set([
  'webhook.disabled',
  'webhook.enabled',
  'delivery.failed',
]);

/**
 * Deliveries to the operator webhook have no endpoint row: they are stored with this endpoint id and
 * company id (no row has id 0), so that no company sees them in its portal, and the retry scheduler
 * and replays build their attempts from the configuration.
 */
export const OPERATOR_ENDPOINT_ID = 0;
export const OPERATOR_COMPANY_ID = 0;

/** The operator webhook as a job's endpoint: its address and secrets as configured now. */
export function operatorJobEndpoint(operator: OperatorWebhookConfig): JobEndpoint {
  return { id: OPERATOR_ENDPOINT_ID, url: operator.url, secrets: operator.secrets };
}

/** Who changed an endpoint's state (the `by` label of gateway_webhook_endpoint_state_changes_total). */
export type EndpointStateChanger = 'gateway' | 'api' | 'admin' | 'portal';

/** One state change reported, for the metrics once committed. */
export interface EndpointStateChange {
  state: 'disabled' | 'enabled';
  by: EndpointStateChanger;
}

/**
 * Changes an endpoint (url, filter, active flag) and, when its active flag moved, writes
 * `webhook.disabled` or `webhook.enabled` with the endpoint as it is after the change. Run it inside
 * the caller's transaction; it reads the endpoint again there, so the change is judged against the
 * row as committed. Answers the endpoint after the change and the state change, if any.
 */
export function changeWebhookEndpoint(
  store: Store,
  endpoint: WebhookEndpointRow,
  changes: WebhookEndpointChanges,
  by: EndpointStateChanger,
  now = Date.now(),
): { endpoint: WebhookEndpointRow; stateChange: EndpointStateChange | null } {
  const before = store.webhooks.find(endpoint.company_id, endpoint.id) ?? endpoint;
  const after = store.webhooks.update(before, changes, now);
  if (before.active === after.active) return { endpoint: after, stateChange: null };
  const state = after.active === 1 ? 'enabled' : 'disabled';
  writeWebhookEvent(store, after, state, now);
  return { endpoint: after, stateChange: { state, by } };
}

/**
 * The events of what recording attempts changed (AttemptEffects): `webhook.disabled` for each
 * endpoint the gateway disabled, `delivery.failed` for each delivery that failed for good. Run it in
 * the transaction that recorded them.
 */
export function recordAttemptEffects(store: Store, effects: AttemptEffects, now: number): void {
  for (const deliveryId of effects.failed) recordDeliveryFailed(store, deliveryId, now);
  for (const { endpointId } of effects.disabled) {
    const endpoint = store.webhooks.findById(endpointId);
    if (endpoint !== undefined) writeWebhookEvent(store, endpoint, 'disabled', now);
  }
}

/**
 * Writes `delivery.failed` for a delivery that just failed for good, unless it is one whose failure
 * is told no further: a delivery to the operator webhook, or of an operational event or a test event
 * (a failed `delivery.failed` would otherwise cause another, endlessly). Answers whether it wrote one.
 */
export function recordDeliveryFailed(store: Store, deliveryId: string, now: number): boolean {
  const delivery = store.deliveries.find(deliveryId);
  if (delivery === undefined || !reportsFailure(delivery)) return false;
  recordEvent(store.outbox, delivery.company_id, 'delivery', 'failed', presentDelivery(delivery), new Date(now));
  return true;
}

/** Whether the failure of this delivery is reported as `delivery.failed`. */
export function reportsFailure(delivery: { endpoint_id: number; event_name: string }): boolean {
  return (
    delivery.endpoint_id !== OPERATOR_ENDPOINT_ID &&
    !OPERATIONAL_EVENT_NAMES.has(delivery.event_name) &&
    delivery.event_name !== 'webhook.test'
  );
}

/**
 * Whether the fan-out must leave this endpoint out of this event: an endpoint never receives an
 * operational event about its own failure, the `webhook.disabled` about itself or the
 * `delivery.failed` of one of its own deliveries. It is the one receiver known not to be listening;
 * telling it through the channel that failed only doubles the traffic to a dead receiver. The
 * company's other endpoints and the operator webhook are the ones to tell.
 */
export function isAboutItself(event: Pick<EventRecord, 'name' | 'body'>, endpointId: number): boolean {
  if (event.name === 'webhook.disabled') return (event.body.object as { id?: unknown } | undefined)?.id === endpointId;
  if (event.name === 'delivery.failed')
    return (event.body.object as { endpoint_id?: unknown } | undefined)?.endpoint_id === endpointId;
  return false;
}

function writeWebhookEvent(
  store: Store,
  endpoint: WebhookEndpointRow,
  state: 'disabled' | 'enabled',
  now: number,
): void {
  recordEvent(store.outbox, endpoint.company_id, 'webhook', state, presentWebhook(endpoint), new Date(now));
}
