import type { JSONSchema } from 'json-schema-to-ts';
import { authObjectWith, authPageObject } from '../objects/auth.js';
import { eventId } from './fields.js';

/** A page as an OAuth step shows it: with the address that connects that page (`oauth_provider_url`). */
const pageWithOAuth = {
  ...authPageObject,
  properties: { ...authPageObject.properties, oauth_provider_url: { type: 'string', format: 'uri' } },
} as const;

/**
 * The v2 auth event (contract section 6, docs/design.md section 6): the envelope
 * `{id, event, type: 'auth', created_at, object}` with the auth object as the REST API presents it.
 * `create` when an auth (or v1 channel) is created, `update` when its state changes (the object
 * carries the new state), `delete` when it is deleted (the object as it was removed, `disabled`).
 * The connector flows add `qr`, `code` or `oauth_provider_url` to an `update` object; an OAuth step
 * that lists pages shows each page with its own `oauth_provider_url`.
 */
export const authEvent = {
  $id: 'events/auth',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'event', 'type', 'created_at', 'object'],
  properties: {
    id: eventId,
    event: { type: 'string', enum: ['create', 'update', 'delete'] },
    type: { type: 'string', const: 'auth' },
    created_at: { type: 'string', format: 'date-time' },
    object: authObjectWith({
      qr: { type: 'string' },
      code: { type: 'string' },
      pages: { type: ['array', 'null'], items: pageWithOAuth },
      oauth_provider_url: { type: 'string', format: 'uri' },
    }),
  },
} as const satisfies JSONSchema;
