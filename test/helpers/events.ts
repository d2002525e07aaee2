import type { ValidateFunction } from 'ajv';
import { conversationEvent } from '../../schemas/events/conversation.js';
import { messageEvent } from '../../schemas/events/message.js';
import type { EventRecord } from '../../src/streams/catalog.js';
import type { Store } from '../../src/store/store.js';
import { compileSchema, schemaErrors } from './schemas.js';

const validators = new Map<string, ValidateFunction>();

/** Registers the schema every emitted event of a type must match. */
export function registerEventSchema(type: string, schema: object): void {
  validators.set(type, compileSchema(schema));
}
registerEventSchema('message', messageEvent);
registerEventSchema('conversation', conversationEvent);

/** Every event written to the outbox for `gateway.events`, oldest first. */
export function emittedEvents(store: Store): EventRecord[] {
  const rows = store.db
    .prepare<[], { payload: string }>("SELECT payload FROM outbox WHERE stream = 'gateway.events' ORDER BY id")
    .all();
  return rows.map((r) => JSON.parse(r.payload) as EventRecord);
}

/** Events emitted after `before` (a previous emittedEvents().length), each validated against its schema. */
export function newEvents(store: Store, before: number): EventRecord[] {
  const events = emittedEvents(store).slice(before);
  for (const event of events) assertValidEvent(event);
  return events;
}

export function assertValidEvent(event: EventRecord): void {
  const type = String(event.body.type ?? event.name.split('.')[0]);
  const validate = validators.get(type);
  if (validate === undefined) throw new Error(`no schema registered for events of type ${type}`);
  if (!validate(event.body)) {
    throw new Error(`event ${event.name} does not match its schema: ${schemaErrors(validate)}\n${JSON.stringify(event.body)}`);
  }
  if (event.name !== `${String(event.body.type)}.${String(event.body.event)}` || event.id !== event.body.id) {
    throw new Error(`event record and body disagree: ${JSON.stringify(event)}`);
  }
}
