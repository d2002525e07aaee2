import type { JSONSchema } from 'json-schema-to-ts';

/**
 * Event names an endpoint may ask for (`<type>.<event>`, docs/design.md section 6): the v2 envelope's
 * events, the v1 channel payloads, the write-first job result and the operational events (an
 * endpoint disabled or enabled, a delivery failed for good). Every one is in the event catalog
 * (schemas/events/catalog.ts) with its schema and an example.
 */
export const WEBHOOK_EVENT_TYPES = [
  'message.create',
  'message.update',
  'conversation.create',
  'conversation.update',
  'auth.create',
  'auth.update',
  'auth.delete',
  'channel.qr_code',
  'channel.code',
  'channel.state',
  'channel.pages',
  'job.executed',
  'webhook.disabled',
  'webhook.enabled',
  'delivery.failed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const timestamp = { type: 'string', format: 'date-time' } as const;

/** A company webhook endpoint. `secret` is present only in the answers of create and rotate_secret. */
export const webhookObject = {
  $id: 'objects/webhook',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'company_id', 'source', 'url', 'event_types', 'active', 'disabled_reason', 'previous_secret_expires_at', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    company_id: { type: 'integer', minimum: 1 },
    /** `company`: the company's v1 webhook_url; `api`: created here. */
    source: { type: 'string', enum: ['company', 'api'] },
    url: { type: 'string' },
    event_types: { type: ['array', 'null'], items: { type: 'string', enum: WEBHOOK_EVENT_TYPES } },
    active: { type: 'boolean' },
    disabled_reason: { type: ['string', 'null'] },
    /** Until then the secret replaced by the last rotation still signs deliveries. */
    previous_secret_expires_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: timestamp,
    updated_at: timestamp,
    secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]{32}$' },
  },
} as const satisfies JSONSchema;
