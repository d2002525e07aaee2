import type { JSONSchema } from 'json-schema-to-ts';
import { companyId, pathCompanyBody } from './common.js';

/**
 * Event names an endpoint may ask for (`<type>.<event>`, docs/design.md section 6): the v2 envelope's
 * events, the v1 channel payloads and the write-first job result.
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
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Optional: the company is the path's, and a `company_id` sent beside it must name the same one. */

const url = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  format: 'webhook-url',
  'x-message': 'must be an absolute http(s) URL',
} as const;

/** null (or absent at creation): every event. */
const eventTypes = {
  type: ['array', 'null'],
  items: { type: 'string', enum: WEBHOOK_EVENT_TYPES },
  minItems: 1,
  uniqueItems: true,
  'x-message': 'must be a non-empty list of distinct event names, or null for every event',
} as const;

/** POST /api/p2/companies/<company_id>/webhooks */
export const webhookCreateBody = {
  $id: 'v2/webhook-create',
  type: 'object',
  required: ['url'],
  properties: { company_id: companyId, url, event_types: eventTypes, active: { type: 'boolean', default: true } },
} as const satisfies JSONSchema;

/** PUT or PATCH .../webhooks/<id>: the fields sent change, the others stay. */
export const webhookUpdateBody = {
  $id: 'v2/webhook-update',
  type: 'object',
  properties: { company_id: companyId, url, event_types: eventTypes, active: { type: 'boolean' } },
} as const satisfies JSONSchema;

/** GET, DELETE, POST .../rotate_secret: nothing beyond the company. */
export const webhookActionBody = pathCompanyBody;

const timestamp = { type: 'string', format: 'date-time' } as const;

/** A company webhook endpoint. `secret` is present only in the answers of create and rotate_secret. */
export const webhookObject = {
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

export const webhookResponse = {
  $id: 'v2/webhook-response',
  type: 'object',
  additionalProperties: false,
  required: ['webhook'],
  properties: { webhook: webhookObject },
} as const satisfies JSONSchema;

export const webhookListResponse = {
  $id: 'v2/webhook-list-response',
  type: 'object',
  additionalProperties: false,
  required: ['webhooks'],
  properties: { webhooks: { type: 'array', items: webhookObject, maxItems: 5 } },
} as const satisfies JSONSchema;
