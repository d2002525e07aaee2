import { NotFound } from '../errors/errors.js';
import type { ContactRow } from '../store/resources/contacts.js';
import type { Store } from '../store/store.js';
import { recordEvent } from './events.js';

/** What an erasure answers: the event's object, and the files whose bytes go once it committed. */
export interface ContactErasure {
  contact: { id: number; company_id: number; conversation_ids: number[]; deleted_at: string };
  storageKeys: string[];
}

/** The top-level fields of an event body an erased delivery keeps: ids and names, never content. */
const KEPT_FIELDS = ['id', 'event', 'type', 'created_at', 'company_id', 'source', 'operation'] as const;

/**
 * Erases one contact of a company (DELETE /api/p2/companies/<id>/contacts/<id>): its
 * conversations, messages, attachment rows, early statuses and callback receipts; every kept event
 * payload, send job and stored API answer that is about it (found by `erasureMarkers`); the bodies
 * of the deliveries about it, scrubbed to ids (`scrubEvent`), with their attempts' response
 * bodies. Writes `contact.delete` in the same transaction. The caller runs it inside
 * store.transaction and deletes the files of `storageKeys` after the commit.
 */
export function eraseContact(store: Store, companyId: number, contactId: number, now = new Date()): ContactErasure {
  const contact = store.contactErasure.find(companyId, contactId);
  if (contact === undefined) throw new NotFound(`Contact ${contactId} was not found.`);
  const markers = erasureMarkers(contact, store.contactErasure.conversationsOf(contact.id));
  const erased = store.contactErasure.erase(contact, markers, (event) => scrubEvent(event));
  const object = {
    id: contact.id,
    company_id: companyId,
    conversation_ids: erased.conversationIds,
    deleted_at: now.toISOString(),
  };
  recordEvent(store.outbox, companyId, 'contact', 'delete', object, now);
  return { contact: object, storageKeys: erased.storageKeys };
}

/**
 * Texts that occur in a stored payload only when it is about the contact: its personal values as
 * whole JSON strings (a name that is a part of another text does not count), also as they read
 * inside a JSON text nested in JSON, and the references to it and its conversations as JSON
 * members. Empty values mark nothing.
 */
export function erasureMarkers(contact: ContactRow, conversationIds: readonly number[]): string[] {
  const values = [contact.phone, contact.name, contact.external_id, contact.external_public_id, contact.avatar_url]
    .filter((value): value is string => value !== null && value !== '')
    .map((value) => JSON.stringify(value));
  const nested = values.map((quoted) => JSON.stringify(quoted).slice(1, -1));
  const references = [
    ...[`"contact_id":${contact.id}`],
    ...conversationIds.map((id) => `"conversation_id":${id}`),
  ].flatMap((member) => [`${member},`, `${member}}`]);
  return [...new Set([...values, ...nested, ...references])];
}

/** An event record (`{id, company_id, name, created_at, body}`) with its body cut to ids and names, marked erased. */
export function scrubEvent(text: string): string {
  const record = JSON.parse(text) as { body?: Record<string, unknown> };
  const body = record.body ?? {};
  const kept: Record<string, unknown> = {};
  for (const field of KEPT_FIELDS) if (typeof body[field] !== 'object' && field in body) kept[field] = body[field];
  return JSON.stringify({ ...record, body: { ...kept, erased: true } });
}
