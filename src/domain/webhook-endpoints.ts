import { V1_WEBHOOK_EVENT_TYPES, WEBHOOK_URL_TEST_EVENT } from '../../schemas/objects/webhook.js';
import type { Store } from '../store/store.js';
import type { WebhookEndpointRow } from '../store/resources/webhooks.js';
import type { EventRecord, JobEndpoint } from '../streams/catalog.js';
import { matchesFilter, parseFilter } from './endpoint-filter.js';
import { brokerDestinationOf } from '../presenters/destination.js';

/**
 * The rules of webhook endpoints: how many a company may have, which events an endpoint wants,
 * which secrets sign its deliveries and how long a rotated secret keeps signing. The store keeps the
 * rows; these decide.
 */

/** Endpoints a company may have, its v1 webhook_url included (docs/design.md section 9). */
export const MAX_ENDPOINTS_PER_COMPANY = 5;

/** How long the secret replaced by a rotation keeps signing deliveries. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Whether an endpoint wants an event of this name: the company's v1 webhook_url only the v1 payloads
 * (and its own test POST, whatever its filter), the other endpoints every other event their filter
 * names (null: every one).
 */
export function wantsEvent(endpoint: Pick<WebhookEndpointRow, 'event_types' | 'source'>, name: string): boolean {
  if (name === WEBHOOK_URL_TEST_EVENT) return endpoint.source === 'company';
  if (endpoint.source === 'company' && !V1_EVENTS.has(name)) return false;
  if (endpoint.event_types === null) return true;
  return (JSON.parse(endpoint.event_types) as string[]).includes(name);
}

const V1_EVENTS: ReadonlySet<string> = new Set(V1_WEBHOOK_EVENT_TYPES);

/**
 * Whether the event's content passes the endpoint's payload filter (none: every event). The filter
 * reads the v2 envelope `{event, type, object}`, also for the company's webhook_url, which gets the
 * v1 rendition of the same event.
 */
export function passesFilter(endpoint: Pick<WebhookEndpointRow, 'filter'>, event: Pick<EventRecord, 'body'>): boolean {
  const filter = parseFilter(endpoint.filter);
  return filter === null || matchesFilter(filter, event.body);
}

/** The secrets that sign a delivery now: the current one, and the previous one until it expires. */
export function signingSecrets(
  endpoint: Pick<WebhookEndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  now = Date.now(),
): string[] {
  const previousValid =
    endpoint.previous_secret !== null &&
    endpoint.previous_secret_expires_at !== null &&
    endpoint.previous_secret_expires_at > now;
  return previousValid ? [endpoint.secret, endpoint.previous_secret!] : [endpoint.secret];
}

/** The job's view of an endpoint as it is at `now`: its address, the secrets signing now, its options. */
export function jobEndpoint(endpoint: WebhookEndpointRow, now: number): JobEndpoint {
  const target: JobEndpoint = { id: endpoint.id, url: endpoint.url, secrets: signingSecrets(endpoint, now) };
  if (endpoint.rate_limit !== null) target.rate_limit = endpoint.rate_limit;
  if (endpoint.ordering === 'strict') target.ordering = 'strict';
  if (endpoint.retry_schedule !== null) target.retry_schedule = JSON.parse(endpoint.retry_schedule) as number[];
  const destination = brokerDestinationOf(endpoint);
  if (destination !== undefined) target.destination = destination;
  return target;
}

/** What the operator lets an endpoint's own retry schedule do (GATEWAY_WEBHOOK_ENDPOINT_MAX_*). */
export interface RetryScheduleBounds {
  /** Automatic attempts, the first one included. */
  maxAttempts: number;
  maxDelayMs: number;
}

/**
 * Why a retry schedule (seconds before each retry) is outside the operator's bounds, as field
 * problems (`retry_schedule`, `retry_schedule/3`); none when it is within them.
 */
export function retryScheduleProblems(
  schedule: readonly number[],
  bounds: RetryScheduleBounds,
): { field: string; detail: string }[] {
  if (schedule.length + 1 > bounds.maxAttempts) {
    return [
      {
        field: 'retry_schedule',
        detail: `retry_schedule makes ${schedule.length + 1} attempts, more than the ${bounds.maxAttempts} this gateway allows (GATEWAY_WEBHOOK_ENDPOINT_MAX_ATTEMPTS): list at most ${bounds.maxAttempts - 1} delays`,
      },
    ];
  }
  const maxSeconds = Math.floor(bounds.maxDelayMs / 1000);
  return schedule.flatMap((seconds, index) =>
    seconds > maxSeconds
      ? [
          {
            field: `retry_schedule/${index}`,
            detail: `retry_schedule.${index} waits ${seconds} seconds, longer than the ${maxSeconds} this gateway allows (GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY)`,
          },
        ]
      : [],
  );
}

/**
 * Gives the endpoint a new secret; the current one becomes the previous secret and keeps signing
 * for PREVIOUS_SECRET_TTL_MS (a secret replaced earlier stops at once).
 */
export function rotateSecret(store: Store, endpointId: number, now = Date.now()): WebhookEndpointRow | undefined {
  return store.webhooks.rotate(endpointId, now + PREVIOUS_SECRET_TTL_MS, now);
}

export type CompanyUrlSync = { status: 'synced'; endpoint: WebhookEndpointRow | null } | { status: 'limit_reached' };

/**
 * Mirrors a company's v1 webhook_url: creates the 'company' endpoint (new secret, every event,
 * active), changes its url, or removes it when the url is cleared. Creating it when the company
 * already has MAX_ENDPOINTS_PER_COMPANY endpoints changes nothing and answers `limit_reached`.
 * Run it in the transaction of the company change.
 */
export function syncCompanyUrl(store: Store, companyId: number, url: string | null, now = Date.now()): CompanyUrlSync {
  const current = store.webhooks.companyEndpoint(companyId);
  if (url === null) {
    if (current !== undefined) store.webhooks.delete(current.id);
    return { status: 'synced', endpoint: null };
  }
  if (current === undefined) {
    if (store.webhooks.count(companyId) >= MAX_ENDPOINTS_PER_COMPANY) return { status: 'limit_reached' };
    return {
      status: 'synced',
      endpoint: store.webhooks.create({ companyId, source: 'company', url, eventTypes: null, active: true }, now),
    };
  }
  return { status: 'synced', endpoint: current.url === url ? current : store.webhooks.update(current, { url }, now) };
}
