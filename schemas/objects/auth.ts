import type { JSONSchema } from 'json-schema-to-ts';
import { PROVIDERS } from '../v1/channels.js';

/** How an unconfirmed auth gets connected (see docs/decisions.md, "Auths"). */
export const CONFIRMATION_METHODS = ['qr', 'pairing_code', 'code', 'oauth'] as const;
export type ConfirmationMethod = (typeof CONFIRMATION_METHODS)[number];

const text = { type: 'string' } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;

/** A page an auth's provider offers to connect (the hosted service's pages object). */
export const authPageObject = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'auth_id', 'company_id', 'external_id', 'name', 'enabled'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    auth_id: { type: 'integer', minimum: 1 },
    company_id: { type: 'integer', minimum: 1 },
    /** The provider's id, as text (ids of some providers exceed the safe integers). */
    external_id: text,
    name: text,
    enabled: { type: 'boolean' },
  },
} as const satisfies JSONSchema;

/**
 * The auth object (v2): the connected account without any credential. The REST answers show it
 * (schemas/v2/auths.ts) and it is the `object` of the auth events (schemas/events/auth.ts).
 */
export const authObject = {
  $id: 'objects/auth',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'company_id',
    'provider',
    'state',
    'phone_number',
    'username',
    'confirmation',
    'settings',
    'created_at',
    'updated_at',
    'sync_messages_at',
    'pages',
  ],
  properties: {
    id: { type: 'integer', minimum: 1 },
    company_id: { type: 'integer', minimum: 1 },
    provider: { type: 'string', enum: PROVIDERS },
    state: { type: 'string', enum: ['unconfirmed', 'enabled', 'disabled'] },
    /** The connected account's phone (digits), when the provider tells it or the auth was created with it. */
    phone_number: { type: ['string', 'null'] },
    /** The connected account's user name, when the provider tells it. */
    username: { type: ['string', 'null'] },
    /** null: connected by a credential, nothing to confirm. */
    confirmation: { type: ['string', 'null'], enum: [...CONFIRMATION_METHODS, null] },
    /** The non-secret connection settings given at creation; absent ones are left out. */
    settings: {
      type: 'object',
      additionalProperties: false,
      properties: {
        phone: text,
        via_qr_code: { type: 'boolean' },
        sync_messages_from: { type: 'string', format: 'date-time' },
        hosting_type: { type: 'string', enum: ['cloud', 'onpremise'] },
        subtype: { type: 'string', enum: ['regular', 'unlim', 'no_write_first'] },
        vendor_channel_id: text,
        vendor_client_id: text,
        account_name: text,
      },
    },
    created_at: timestamp,
    updated_at: timestamp,
    /** Where message history is synchronized from (sync_period or sync_messages_from); null: none. */
    sync_messages_at: { type: ['string', 'null'], format: 'date-time' },
    /** The pages the provider offers, or null when it offers none. */
    pages: { type: ['array', 'null'], items: authPageObject },
  },
} as const satisfies JSONSchema;

/**
 * The auth object with more properties beside its own: what a connector showed (`qr`, `code`, ...)
 * in an answer or an event. Without the `$id`: it is another schema than authObject, and one id
 * may name only one schema.
 */
export function authObjectWith<const P extends Record<string, JSONSchema>>(extra: P) {
  const { $id: _id, ...shape } = authObject;
  return { ...shape, properties: { ...shape.properties, ...extra } };
}
