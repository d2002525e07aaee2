import { jobKey, type DeliveryJob } from '../streams/catalog.js';
import type { EventRecord } from '../streams/catalog.js';
import type { Store } from '../store/store.js';
import type { WebhookEndpointRow } from '../store/webhooks.js';
import { signingSecrets, wantsEvent } from '../store/webhooks.js';
import type { OutgoingMessage } from '../streams/stream.js';
import { isAboutItself } from '../domain/operational-events.js';

/** Active endpoints per company, read once per relay batch (its fan-out runs in one transaction). */
export type EndpointCache = Map<number, WebhookEndpointRow[]>;

/**
 * Turns one event of the outbox into its deliveries: one per active endpoint of the company that
 * wants the event (never the endpoint a `webhook.disabled` or `delivery.failed` is about). The delivery rows are created here (idempotently: a relay that crashed before
 * marking the row fans it out again onto the same deliveries), and each job carries its endpoint's
 * address and signing secrets so that workers need no store. Runs inside the caller's transaction
 * (the relay's fan-out of a batch), which keeps an event's deliveries all or nothing. The jobs
 * and the deliveries carry `traceparent`, the context of the relay's publish of the event.
 */
export function fanOutEvent(store: Store, event: EventRecord, now: number, endpointsOf: EndpointCache = new Map(), eventJson?: string, traceparent?: string): OutgoingMessage[] {
  let active = endpointsOf.get(event.company_id);
  if (active === undefined) endpointsOf.set(event.company_id, (active = store.webhooks.active(event.company_id)));
  const endpoints = active.filter((endpoint) => wantsEvent(endpoint, event.name) && !isAboutItself(event, endpoint.id));
  const deliveries = store.deliveries.createForEvent(event, endpoints, now, eventJson, traceparent ?? null);
  return deliveries.map((deliveryId, index) => {
    const endpoint = endpoints[index]!;
    const job: DeliveryJob = {
      delivery_id: deliveryId,
      event,
      endpoint: { id: endpoint.id, url: endpoint.url, secrets: signingSecrets(endpoint, now) },
      attempt: 1,
      step: 1,
      trigger: 'auto',
    };
    return { key: jobKey(job), id: `${deliveryId}:1`, value: job, traceparent };
  });
}
