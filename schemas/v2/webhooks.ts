import type { JSONSchema } from 'json-schema-to-ts';
import { MAX_WEBHOOK_RATE_LIMIT, WEBHOOK_EVENT_TYPES, WEBHOOK_ORDERINGS, webhookObject } from '../objects/webhook.js';
import { companyId, pathCompanyBody } from './common.js';

/** The event names are the webhook object's (schemas/objects/webhook.ts); request bodies name them too. */
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../objects/webhook.js';

/** Optional: the company is the path's, and a `company_id` sent beside it must name the same one. */

const url = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  format: 'webhook-url',
  'x-message': 'must be an absolute http(s) URL',
} as const;

/** null (or absent at creation): every event. */
export const eventTypes = {
  type: ['array', 'null'],
  items: { type: 'string', enum: WEBHOOK_EVENT_TYPES },
  minItems: 1,
  uniqueItems: true,
  'x-message': 'must be a non-empty list of distinct event names, or null for every event',
} as const;

/** `strict`: each event waits until every earlier one of the endpoint was delivered or failed for good. */
const ordering = {
  type: 'string',
  enum: WEBHOOK_ORDERINGS,
  'x-message': 'must be "default" or "strict"',
} as const;

/** Deliveries per second at most, or null for no limit. */
const rateLimit = {
  type: ['integer', 'null'],
  minimum: 1,
  maximum: MAX_WEBHOOK_RATE_LIMIT,
  'x-message': `must be a whole number of deliveries per second from 1 to ${MAX_WEBHOOK_RATE_LIMIT}, or null for no limit`,
} as const;

/** POST /api/p2/companies/<company_id>/webhooks */
export const webhookCreateBody = {
  $id: 'v2/webhook-create',
  type: 'object',
  required: ['url'],
  properties: {
    company_id: companyId,
    url,
    event_types: eventTypes,
    active: { type: 'boolean', default: true },
    ordering: { ...ordering, default: 'default' },
    rate_limit: rateLimit,
  },
} as const satisfies JSONSchema;

/** PUT or PATCH .../webhooks/<id>: the fields sent change, the others stay. */
export const webhookUpdateBody = {
  $id: 'v2/webhook-update',
  type: 'object',
  properties: { company_id: companyId, url, event_types: eventTypes, active: { type: 'boolean' }, ordering, rate_limit: rateLimit },
} as const satisfies JSONSchema;

/** GET, DELETE, POST .../rotate_secret: nothing beyond the company. */
export const webhookActionBody = pathCompanyBody;

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
