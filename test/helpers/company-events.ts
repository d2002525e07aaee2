// The events of one company as a client sees them, through HTTP alone (so it holds against one
// daemon and a cluster alike): every webhook of an endpoint subscribed to everything, in the order
// the gateway emitted them (the order of the admin API's delivery list), each checked against its
// schema. To know that nothing more is on its way, it writes an event of its own (a second endpoint
// of the company, which wants nothing, disabled or enabled by the admin API) and waits until that
// one arrived: the relay fans a company's events out in the order they were written.
import { assertValidEvent } from './events.js';
import type { TestGateway } from './gateway.js';
import { startReceiver } from './receiver.js';
import { eventually } from './wait.js';

/** An event as its webhook brought it: the name and company of its delivery, the body received. */
export interface ObservedEvent {
  id: string;
  name: string;
  company_id: number;
  /** The body's `created_at` ('' for a body without one). */
  created_at: string;
  body: Record<string, any>;
}

export interface CompanyEvents {
  /**
   * The endpoint whose webhook.enabled and webhook.disabled mark the present: the company's other
   * endpoints that want every event receive them too.
   */
  markerEndpointId: number;
  /** How many marker events were written so far. */
  markers(): number;
  /** How many events the company emitted so far (waits until all of them arrived). */
  count(): Promise<number>;
  /** The events emitted after the first `count`, oldest first (waits until all of them arrived). */
  since(count: number): Promise<ObservedEvent[]>;
  close(): Promise<void>;
}

interface ListedDelivery {
  id: string;
  event_id: string;
  event_type: string;
  company_id: number;
}

/** No event has this `type`: the marker endpoint's filter, so that it never gets a delivery. */
const NOTHING = { path: 'type', op: 'eq', value: 'an event type the marker endpoint never wants' };

/**
 * Subscribes an endpoint of `companyId` to every event; the gateway needs TO_RECEIVERS (loopback
 * allowed, the admin API on). Events emitted before this call are not seen.
 */
export async function observeCompanyEvents(gw: TestGateway, companyId: number): Promise<CompanyEvents> {
  let secret = '';
  const receiver = await startReceiver(() => [secret]);
  const create = async (json: Record<string, unknown>) => {
    const created = await gw.request('POST', `/api/p2/companies/${companyId}/webhooks`, { json });
    if (created.status !== 201) throw new Error(`endpoint not created: ${created.status} ${created.text}`);
    return created.body.webhook as { id: number; secret: string };
  };
  const observer = await create({ url: receiver.url, active: true });
  secret = observer.secret;
  const marker = await create({ url: `${receiver.url}/marker`, active: false, filter: NOTHING });
  let markers = 0;
  /** The observer's deliveries, oldest first. */
  const listed: ListedDelivery[] = [];

  const bodyOf = (eventId: string) =>
    receiver.received.find((hook) => hook.id === eventId && hook.verifiedBy.includes(0))?.body as
      Record<string, any> | undefined;
  const isMarker = (delivery: ListedDelivery) =>
    (delivery.event_type === 'webhook.enabled' || delivery.event_type === 'webhook.disabled') &&
    bodyOf(delivery.event_id)?.object?.id === marker.id;

  /** Appends the deliveries listed since the last call (the list is newest first). */
  const readNewDeliveries = async () => {
    const known = new Set(listed.map((delivery) => delivery.id));
    const fresh: ListedDelivery[] = [];
    let cursor: string | null = null;
    do {
      const page = await gw.admin(
        'GET',
        `/admin/deliveries?company_id=${companyId}&endpoint_id=${observer.id}&limit=200` +
          (cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`),
      );
      if (page.status !== 200)
        throw new Error(`admin deliveries answered ${page.status}: ${JSON.stringify(page.body)}`);
      const rows = page.body.deliveries as ListedDelivery[];
      const seenBefore = rows.findIndex((row) => known.has(row.id));
      fresh.push(...(seenBefore === -1 ? rows : rows.slice(0, seenBefore)));
      cursor = seenBefore === -1 ? (page.body.next_cursor as string | null) : null;
    } while (cursor !== null);
    listed.push(...fresh.reverse());
  };

  /** Writes a marker event, then waits until it and everything listed before it arrived. */
  const settle = async () => {
    const action = markers % 2 === 0 ? 'enable' : 'disable';
    const toggled = await gw.admin('POST', `/admin/companies/${companyId}/endpoints/${marker.id}/${action}`);
    if (toggled.status !== 200) throw new Error(`marker ${action} answered ${toggled.status}`);
    markers += 1;
    await eventually(
      `every event of company ${companyId} received, marker ${markers} included`,
      async () => {
        await readNewDeliveries();
        return (
          listed.every((delivery) => bodyOf(delivery.event_id) !== undefined) &&
          listed.filter(isMarker).length === markers
        );
      },
      15_000,
    );
  };

  const events = async (): Promise<ObservedEvent[]> => {
    await settle();
    return listed
      .filter((delivery) => !isMarker(delivery))
      .map((delivery) => {
        const event = {
          id: delivery.event_id,
          name: delivery.event_type,
          company_id: delivery.company_id,
          created_at: '',
          body: bodyOf(delivery.event_id)!,
        };
        // What a receiver knows of when: the body's own time, where it carries one.
        if (typeof event.body.created_at === 'string') event.created_at = event.body.created_at;
        assertValidEvent(event);
        return event;
      });
  };

  return {
    markerEndpointId: marker.id,
    markers: () => markers,
    count: async () => (await events()).length,
    since: async (count) => (await events()).slice(count),
    close: () => receiver.close(),
  };
}
