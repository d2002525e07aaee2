import type { JSONSchema } from 'json-schema-to-ts';
import { destinationRequired, kafkaSettings, rabbitmqSettings, sqsSettings } from './objects/destination.js';
import { httpUrl } from './v2/common.js';
import { destinationFields, eventTypes } from './v2/webhooks.js';

/**
 * Request bodies and queries of the company portal's API (/portal/api, docs/console.md). The
 * company is always the session's: no schema takes a company_id, and unknown fields are refused,
 * so nothing sent can name another company.
 */

const endpointId = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;

/**
 * POST /portal/api/webhooks: a webhook's url, or a broker's settings under its type's name, as the
 * API takes them (schemas/v2/webhooks.ts), credentials included.
 */
export const portalWebhookCreateBody = {
  $id: 'portal/webhook-create',
  type: 'object',
  additionalProperties: false,
  allOf: destinationRequired,
  properties: {
    ...destinationFields,
    event_types: eventTypes,
  },
} as const satisfies JSONSchema;

/**
 * A Kafka endpoint's new settings in the portal: as the API takes them, except that the SASL
 * username and password may be left out to keep the stored ones (src/portal/kept-credentials.ts).
 */
const portalKafkaUpdate = {
  ...kafkaSettings,
  properties: {
    ...kafkaSettings.properties,
    sasl: { ...kafkaSettings.properties.sasl, required: ['mechanism'] },
  },
} as const satisfies JSONSchema;

/**
 * PATCH /portal/api/webhooks/<id>: the fields sent change. A broker endpoint's settings replace the
 * stored ones, except credentials left out, which are kept while the target's hosts stay the same.
 */
export const portalWebhookUpdateBody = {
  $id: 'portal/webhook-update',
  type: 'object',
  additionalProperties: false,
  properties: {
    url: httpUrl,
    kafka: portalKafkaUpdate,
    rabbitmq: rabbitmqSettings,
    sqs: sqsSettings,
    event_types: eventTypes,
    active: { type: 'boolean' },
  },
} as const satisfies JSONSchema;

/** GET /portal/api/deliveries: the company's event log, newest first. */
export const portalDeliveryListQuery = {
  $id: 'portal/delivery-list-query',
  type: 'object',
  additionalProperties: false,
  properties: {
    endpoint_id: endpointId,
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    event_type: { type: 'string', minLength: 1, maxLength: 100 },
    event_id: { type: 'string', minLength: 1, maxLength: 100 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    cursor: { type: 'string', maxLength: 100 },
  },
} as const satisfies JSONSchema;

/** POST /portal/api/replays: the company's failed deliveries, of one endpoint or all, since a time. */
export const portalReplayBody = {
  $id: 'portal/replay-body',
  type: 'object',
  additionalProperties: false,
  properties: { endpoint_id: endpointId, since: { type: 'string', format: 'date-time' } },
} as const satisfies JSONSchema;

/** Actions without parameters (rotate, test, replay one, log out). */
export const portalEmptyBody = {
  $id: 'portal/empty-body',
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const satisfies JSONSchema;
