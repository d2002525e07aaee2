import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { authEvent } from '../../schemas/events/auth.js';
import { contactEvent } from '../../schemas/events/contact.js';
import { channelV1Event } from '../../schemas/events/channel-v1.js';
import { conversationEvent } from '../../schemas/events/conversation.js';
import { jobV1Event } from '../../schemas/events/job-v1.js';
import { groupConversationContactV1Event } from '../../schemas/events/messaging-v1.js';
import { messageEvent } from '../../schemas/events/message.js';
import { webhookUrlTestEvent } from '../../schemas/events/webhook-url-test.js';
import { EVENT_CATALOG } from '../../schemas/events/catalog.js';
import { deliveryEvent } from '../../schemas/events/delivery.js';
import { webhookEvent } from '../../schemas/events/webhook.js';
import type { EventRecord } from '../../src/streams/catalog.js';
import type { Store } from '../../src/store/store.js';
import { compileSchema, schemaErrors } from './schemas.js';
import { publishedBy } from '../record-published.js';

const validators = new Map<string, ValidateFunction>();

/** Registers the schema every emitted event of a family must match (the v2 `type`, `channel` for the v1 payloads, `job`). */
export function registerEventSchema(family: string, schema: object): void {
  validators.set(family, compileSchema(schema));
}
registerEventSchema('message', messageEvent);
registerEventSchema('conversation', conversationEvent);
registerEventSchema('auth', authEvent);
registerEventSchema('contact', contactEvent);
// Strict too, but for strictRequired: its conditional `then: {required: [...]}` names properties the
// top level declares, which ajv's strictRequired does not look for there.
const v1Ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
((formats as { default?: unknown }).default as typeof formats.default)(v1Ajv);
validators.set('channel', v1Ajv.compile(channelV1Event));
registerEventSchema('job', jobV1Event);
registerEventSchema('group_conversation_contact', groupConversationContactV1Event);
registerEventSchema('webhook_url', webhookUrlTestEvent);
registerEventSchema('webhook', webhookEvent);
registerEventSchema('delivery', deliveryEvent);

/** The catalog's schema of each event name (GET /api/p2/event_types): every emitted event must be in it and match it too. */
const catalogValidators = new Map(EVENT_CATALOG.map((entry) => [entry.name, v1Ajv.compile(entry.schema)]));

/**
 * Every message of `stream` the outbox took, NOT validated: those it published, in publish order
 * (test/record-published.ts: in embedded mode the events of a group commit leave no row), then the
 * rows of the table not published yet, in id order.
 */
export function outboxMessages(store: Store, stream: string): unknown[] {
  const published = (publishedBy.get(store.outbox) ?? []).filter((row) => row.stream === stream);
  const seen = new Set(published.map((row) => row.id));
  const rows = store.db
    .prepare<[string], { id: number; payload: string }>('SELECT id, payload FROM outbox WHERE stream = ? ORDER BY id')
    .all(stream)
    .filter((row) => !seen.has(row.id));
  return [...published, ...rows].map((row) => JSON.parse(row.payload) as unknown);
}

/** Every event of `gateway.events` the outbox took, NOT validated (see emittedEvents). */
function storedEvents(store: Store): EventRecord[] {
  return outboxMessages(store, 'gateway.events') as EventRecord[];
}

/** Every event the outbox took for `gateway.events` (see storedEvents), each validated against its schema. */
export function emittedEvents(store: Store): EventRecord[] {
  const events = storedEvents(store);
  for (const event of events) assertValidEvent(event);
  return events;
}

/** Ids of the events a test appended by hand (emitEvent of test/helpers/pipeline.ts): not the gateway's, so not held to the schemas. */
export const handMadeEvents = new Set<string>();

/** Validates every event the gateway emitted against its schema (those a test appended by hand aside). */
export function checkEmittedEvents(store: Store): void {
  for (const event of storedEvents(store)) if (!handMadeEvents.has(event.id)) assertValidEvent(event);
}

/** Events emitted after `before` (a previous emittedEvents().length), each validated against its schema. */
export function newEvents(store: Store, before: number): EventRecord[] {
  return emittedEvents(store).slice(before);
}

/** The schema family of an event: the v1 channel payloads carry `entity: 'channel'`, the webhook_url test `operation: 'test'`, the others their `type`. */
function familyOf(event: EventRecord): string {
  if (event.body.entity === 'channel') return 'channel';
  if (event.body.operation === 'test') return 'webhook_url';
  return String((event.body.type as string | undefined) ?? event.name.split('.')[0]);
}

/** Throws unless the event's body matches its family's schema, the record agrees with the body, and the catalog's entry of its name matches it too. */
export function assertValidEvent(event: EventRecord): void {
  const family = familyOf(event);
  const validate = validators.get(family);
  if (validate === undefined) throw new Error(`no schema registered for events of type ${family}`);
  if (!validate(event.body)) {
    throw new Error(
      `event ${event.name} does not match its schema: ${schemaErrors(validate)}\n${JSON.stringify(event.body)}`,
    );
  }
  const v1 =
    family === 'channel' || family === 'job' || family === 'webhook_url' || family === 'group_conversation_contact';
  const name =
    family === 'channel'
      ? `channel.${event.body.type === 'system' ? 'state' : String(event.body.type)}`
      : family === 'webhook_url'
        ? 'webhook_url.test'
        : `${String(event.body.type)}.${String(event.body.event)}`;
  const companyId = v1 ? event.body.company_id : (event.body.object as { company_id?: unknown }).company_id;
  if (event.name !== name || event.id !== event.body.id || event.company_id !== companyId) {
    throw new Error(`event record and body disagree: ${JSON.stringify(event)}`);
  }
  const inCatalog = catalogValidators.get(event.name);
  if (inCatalog === undefined)
    throw new Error(`event ${event.name} is not in the event catalog (schemas/events/catalog.ts)`);
  if (!inCatalog(event.body)) {
    throw new Error(
      `event ${event.name} does not match its catalog schema: ${v1Ajv.errorsText(inCatalog.errors)}\n${JSON.stringify(event.body)}`,
    );
  }
}
