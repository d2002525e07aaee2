import { jobKey, type DeliveryJob, type JobEndpoint } from '../streams/catalog.js';
import type { EventRecord } from '../streams/catalog.js';
import type { HeldReason } from '../store/deliveries/held-deliveries.js';
import type { Store } from '../store/store.js';
import type { WebhookEndpointRow } from '../store/resources/webhooks.js';
import type { OutgoingMessage } from '../streams/stream.js';
import { isAboutItself } from '../domain/operational-events.js';
import { jobEndpoint, passesFilter, wantsEvent } from '../domain/webhook-endpoints.js';
import { V1_RENDERED_EVENTS, v1RenditionOf } from './v1-renditions.js';

/** Endpoints per company (active or not), read once per relay batch (its fan-out runs in one transaction). */
export type EndpointCache = Map<number, WebhookEndpointRow[]>;

/**
 * Turns one event of the outbox into its deliveries: one per endpoint of the company that wants the
 * event by its name and, for an endpoint with a payload filter, by its content (never the endpoint
 * a `webhook.disabled` or `delivery.failed` is about). The delivery rows
 * are created here (idempotently: a relay that crashed before marking the row fans it out again
 * onto the same deliveries), and each job carries its endpoint's address and signing secrets so
 * that workers need no store. Runs inside the caller's transaction (the relay's fan-out of a
 * batch), which keeps an event's deliveries all or nothing. The jobs and the deliveries carry
 * `traceparent`, the context of the relay's publish of the event.
 *
 * A delivery is held instead of sent (no job) when its endpoint is disabled, and when its endpoint
 * orders strictly and an earlier delivery of it is on its way or held: the retry scheduler lets it
 * out later (src/dispatch/held-release.ts). Endpoints without these (active, default ordering) take
 * the path they always took, without a query of their own.
 */
export function fanOutEvent(
  store: Store,
  event: EventRecord,
  now: number,
  endpointsOf: EndpointCache = new Map(),
  eventJson?: string,
  traceparent?: string,
): OutgoingMessage[] {
  let all = endpointsOf.get(event.company_id);
  if (all === undefined) endpointsOf.set(event.company_id, (all = store.webhooks.list(event.company_id)));
  const endpoints = all.filter(
    (endpoint) =>
      wantsEvent(endpoint, event.name) && !isAboutItself(event, endpoint.id) && passesFilter(endpoint, event),
  );
  // The company's v1 webhook_url gets message and conversation events in their v1 rendition.
  if (V1_RENDERED_EVENTS.has(event.name) && endpoints.some((endpoint) => endpoint.source === 'company')) {
    const rendition = v1RenditionOf(store, event);
    const v2 = deliver(
      store,
      event,
      endpoints.filter((endpoint) => endpoint.source !== 'company'),
      now,
      eventJson,
      traceparent,
    );
    if (rendition === null) return v2;
    return [
      ...v2,
      ...deliver(
        store,
        rendition,
        endpoints.filter((endpoint) => endpoint.source === 'company'),
        now,
        undefined,
        traceparent,
      ),
    ];
  }
  return deliver(store, event, endpoints, now, eventJson, traceparent);
}

/** The deliveries of one event to the endpoints that want it, and the first attempts of those that go now. */
function deliver(
  store: Store,
  event: EventRecord,
  endpoints: readonly WebhookEndpointRow[],
  now: number,
  eventJson: string | undefined,
  traceparent: string | undefined,
): OutgoingMessage[] {
  const plain = endpoints.filter(isPlain);
  const deliveries = store.deliveries.createForEvent(event, plain, now, eventJson, traceparent ?? null);
  const messages = deliveries.map((deliveryId, index) =>
    firstAttempt(deliveryId, event, jobEndpoint(plain[index]!, now), traceparent, eventJson),
  );
  if (plain.length === endpoints.length) return messages;
  const json = eventJson ?? JSON.stringify(event);
  for (const endpoint of endpoints) {
    if (isPlain(endpoint)) continue;
    const reason = heldReason(store, endpoint);
    const delivery = store.held.create(event, endpoint.id, reason, now, json, traceparent ?? null);
    if (!delivery.owed) continue;
    if (endpoint.ordering === 'strict') store.held.setHead(endpoint.id, delivery.id);
    messages.push(firstAttempt(delivery.id, event, jobEndpoint(endpoint, now), traceparent, json));
  }
  return messages;
}

/** An active endpoint without strict ordering: its deliveries go out at once, none is ever held. */
function isPlain(endpoint: WebhookEndpointRow): boolean {
  return endpoint.active === 1 && endpoint.ordering === 'default';
}

/** Why a new delivery to this endpoint waits, or null when it goes out now. */
function heldReason(store: Store, endpoint: WebhookEndpointRow): HeldReason | null {
  if (endpoint.active !== 1) return 'endpoint_disabled';
  if (endpoint.ordering !== 'strict') return null;
  const { busy, held } = store.held.orderState(endpoint.id);
  return busy || held ? 'ordering' : null;
}

/**
 * The message of a delivery's first attempt, keyed by its endpoint. With `eventJson` (the event's
 * JSON text, as the outbox keeps it) the job's text is built around it, not serialized again.
 */
export function firstAttempt(
  deliveryId: string,
  event: EventRecord,
  endpoint: JobEndpoint,
  traceparent: string | undefined,
  eventJson?: string,
): OutgoingMessage {
  const job: DeliveryJob = { delivery_id: deliveryId, event, endpoint, attempt: 1, step: 1, trigger: 'auto' };
  const json =
    eventJson === undefined
      ? undefined
      : `{"delivery_id":${JSON.stringify(deliveryId)},"event":${eventJson},"endpoint":${JSON.stringify(endpoint)},"attempt":1,"step":1,"trigger":"auto"}`;
  return { key: jobKey(job), id: `${deliveryId}:1`, value: job, json, traceparent, recoverable: true };
}
