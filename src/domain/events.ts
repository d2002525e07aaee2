import { WEBHOOK_URL_TEST_EVENT } from '../../schemas/objects/webhook.js';
import { timeOrderedId } from '../lib/ids.js';
import { jsonOf } from '../lib/json-text.js';
import type { OutboxStore } from '../store/pipeline/outbox.js';
import type { EventRecord } from '../streams/catalog.js';

/** Resource types of the v2 envelope, plus the v1 payload families. */
export type EventType = 'message' | 'conversation' | 'contact' | 'auth' | 'webhook' | 'delivery' | 'channel' | 'job';

/** What happened to the resource: its changes, and the operational events' states (src/domain/operational-events.ts). */
export type EventAction = 'create' | 'update' | 'delete' | 'disabled' | 'enabled' | 'failed';

export function newEventId(): string {
  return timeOrderedId('evt_', 10);
}

/**
 * Appends a v2 event (`{id, event, type, created_at, object}`) to the outbox. Call it inside the
 * transaction of the change it reports, never after the commit.
 */
export function recordEvent(
  outbox: OutboxStore,
  companyId: number,
  type: Exclude<EventType, 'channel' | 'job'>,
  event: EventAction,
  object: Record<string, unknown>,
  now = new Date(),
): EventRecord {
  return writeEvent(outbox, companyId, `${type}.${event}`, now, (id, createdAt) => ({
    id,
    event,
    type,
    created_at: createdAt,
    object,
  }));
}

/**
 * Appends the test POST of a company's v1 webhook_url, `{id, source: 'gateway', operation: 'test',
 * company_id, created_at}` (schemas/events/webhook-url-test.ts), which only that endpoint receives.
 * Call it inside the transaction that set or changed the address.
 */
export function recordWebhookUrlTest(outbox: OutboxStore, companyId: number, now = new Date()): EventRecord {
  return writeEvent(outbox, companyId, WEBHOOK_URL_TEST_EVENT, now, (id, createdAt) => ({
    id,
    source: 'gateway',
    operation: 'test',
    company_id: companyId,
    created_at: createdAt,
  }));
}

/**
 * Appends an event named `name` with a new id, its creation time `now`, and the body `build` makes
 * from them (every payload repeats both). Call it inside the transaction of the change it reports.
 */
export function writeEvent(
  outbox: OutboxStore,
  companyId: number,
  name: string,
  now: Date,
  build: (id: string, createdAt: string) => Record<string, unknown>,
): EventRecord {
  const id = newEventId();
  const createdAt = now.toISOString();
  return appendEvent(outbox, { id, company_id: companyId, name, created_at: createdAt, body: build(id, createdAt) });
}

/**
 * Appends an event whose body is already built (the v1 payloads). The record and its body are
 * frozen: the relay may publish the very object (src/store/pipeline/outbox.ts), so it must not change after.
 * The body is serialized once (jsonOf): the record's text and every attempt's request body reuse it.
 */
export function appendEvent(outbox: OutboxStore, record: EventRecord): EventRecord {
  Object.freeze(record.body);
  const { id, company_id: companyId, name, created_at: createdAt } = record;
  const body = jsonOf(record.body);
  const json = `{"id":${JSON.stringify(id)},"company_id":${companyId},"name":${JSON.stringify(name)},"created_at":${JSON.stringify(createdAt)},"body":${body}}`;
  outbox.append({
    stream: 'gateway.events',
    key: String(companyId),
    messageId: id,
    payload: Object.freeze(record),
    json,
    // The live stream carries the v2 envelopes; the v1 payloads go to v1 webhook_urls only.
    ...(isV2Envelope(record.body) ? { logged: { companyId, name, envelope: body } } : {}),
  });
  return record;
}

/** A v2 envelope `{id, event, type, created_at, object}` (the v1 payloads have other shapes). */
function isV2Envelope(body: Record<string, unknown>): boolean {
  return typeof body.type === 'string' && typeof body.event === 'string' && 'object' in body;
}
