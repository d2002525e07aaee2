import type { JSONSchema } from 'json-schema-to-ts';
import { PROVIDERS } from '../v1/channels.js';

/** How an unconfirmed auth gets connected (see docs/decisions.md, "Auths"). */
export const CONFIRMATION_METHODS = ['qr', 'pairing_code', 'code'] as const;
export type ConfirmationMethod = (typeof CONFIRMATION_METHODS)[number];

const text = { type: 'string' } as const;

/**
 * The auth object (v2): the connected account without any credential. The REST answers show it
 * (schemas/v2/auths.ts) and it is the `object` of the auth events (schemas/events/auth.ts).
 */
export const authObject = {
  $id: 'objects/auth',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'company_id', 'provider', 'state', 'confirmation', 'settings', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    company_id: { type: 'integer', minimum: 1 },
    provider: { type: 'string', enum: PROVIDERS },
    state: { type: 'string', enum: ['unconfirmed', 'enabled', 'disabled'] },
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
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
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
