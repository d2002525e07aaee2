import type { JSONSchema } from 'json-schema-to-ts';
import {
  MAX_ENDPOINT_RETRY_ATTEMPTS,
  MAX_ENDPOINT_RETRY_DELAY_S,
  MAX_WEBHOOK_RATE_LIMIT,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_ORDERINGS,
  webhookObject,
} from '../objects/webhook.js';
import { companyId, httpUrl, pageParams, pathCompanyBody } from './common.js';
import { endpointFilter } from '../objects/endpoint-filter.js';
import {
  destinationRequired,
  destinationType,
  kafkaSettings,
  rabbitmqSettings,
  sqsSettings,
} from '../objects/destination.js';

/** The event names are the webhook object's (schemas/objects/webhook.ts); request bodies name them too. */
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../objects/webhook.js';

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

/**
 * Seconds to wait before each retry after the first attempt (`[60, 600]`: three attempts at most),
 * or null for the gateway-wide schedule. The operator's GATEWAY_WEBHOOK_ENDPOINT_MAX_ATTEMPTS and
 * GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY may bound it tighter than this schema (checked by the route).
 */
const retrySchedule = {
  type: ['array', 'null'],
  items: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_ENDPOINT_RETRY_DELAY_S,
    'x-message': `must be a whole number of seconds from 1 to ${MAX_ENDPOINT_RETRY_DELAY_S}`,
  },
  maxItems: MAX_ENDPOINT_RETRY_ATTEMPTS - 1,
  'x-message': `must be a list of at most ${MAX_ENDPOINT_RETRY_ATTEMPTS - 1} delays in seconds (an empty list: no retry), or null for the gateway's schedule`,
} as const;

/**
 * Where an endpoint delivers: its type (`webhook`, the default, `kafka`, `rabbitmq` or `sqs`:
 * schemas/objects/destination.ts) and the target of each. Creation requires the type's own
 * (destinationRequired); an update's settings replace the stored ones whole, credentials included.
 */
export const destinationFields = {
  type: destinationType,
  url: httpUrl,
  kafka: kafkaSettings,
  rabbitmq: rabbitmqSettings,
  sqs: sqsSettings,
} as const;

/**
 * POST /api/p2/companies/<company_id>/webhooks. Created inactive unless `active` is true, as the
 * hosted service's pages document; activating it later sends the test POST first.
 */
export const webhookCreateBody = {
  $id: 'v2/webhook-create',
  type: 'object',
  allOf: destinationRequired,
  properties: {
    company_id: companyId,
    ...destinationFields,
    event_types: eventTypes,
    active: { type: 'boolean', default: false },
    ordering: { ...ordering, default: 'default' },
    rate_limit: rateLimit,
    retry_schedule: retrySchedule,
    filter: endpointFilter,
    /**
     * `ed25519`: the endpoint signs with an ed25519 key pair (Standard Webhooks `v1a`); its `whsk_`
     * private key is answered once, like a secret, and its `whpk_` public key always. Absent:
     * `hmac-sha256`, a `whsec_` secret (`v1`). Chosen at creation; rotate_secret keeps it.
     */
    signing_algorithm: { type: 'string', enum: ['hmac-sha256', 'ed25519'] },
  },
} as const satisfies JSONSchema;

/** GET /api/p2/companies/<company_id>/webhooks: a v2 page (the pages' default of 25). */
export const webhookListQuery = {
  $id: 'v2/webhook-list',
  type: 'object',
  properties: { company_id: companyId, ...pageParams(25, 100) },
} as const satisfies JSONSchema;

/** PUT or PATCH .../webhooks/<id>: the fields sent change, the others stay. */
export const webhookUpdateBody = {
  $id: 'v2/webhook-update',
  type: 'object',
  properties: {
    company_id: companyId,
    /** `type` is chosen at creation: sent here, it must be the endpoint's own. */
    ...destinationFields,
    event_types: eventTypes,
    active: { type: 'boolean' },
    ordering,
    rate_limit: rateLimit,
    retry_schedule: retrySchedule,
    filter: endpointFilter,
    /** Accepted only when it names the endpoint's own algorithm: it is chosen at creation. */
    signing_algorithm: { type: 'string', enum: ['hmac-sha256', 'ed25519'] },
  },
} as const satisfies JSONSchema;

/** GET one, DELETE, POST .../rotate_secret, POST .../test: nothing beyond the company. */
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
  required: ['webhooks', 'meta'],
  properties: {
    webhooks: { type: 'array', items: webhookObject, maxItems: 100 },
    meta: {
      type: 'object',
      additionalProperties: false,
      required: ['page', 'entries_count', 'per_page'],
      properties: {
        page: { type: 'integer', minimum: 1 },
        entries_count: { type: 'integer', minimum: 0 },
        per_page: { type: 'integer', minimum: 1 },
      },
    },
  },
} as const satisfies JSONSchema;

/** POST .../webhooks/<id>/test: the outcome of the one signed test POST (src/dispatch/endpoint-test.ts). */
export const webhookTestResponse = {
  $id: 'v2/webhook-test-response',
  type: 'object',
  additionalProperties: false,
  required: ['test'],
  properties: {
    test: {
      type: 'object',
      additionalProperties: false,
      required: ['webhook_id', 'url', 'success', 'status_code', 'duration_ms', 'response_body', 'error'],
      properties: {
        /** The `webhook-id` header the test POST carried. */
        webhook_id: { type: 'string', pattern: '^test_[0-9a-f]+$' },
        url: { type: 'string' },
        /** Any 2xx answer. */
        success: { type: 'boolean' },
        status_code: { type: ['integer', 'null'] },
        duration_ms: { type: 'integer', minimum: 0 },
        /** The first 4 KiB of the answer. */
        response_body: { type: ['string', 'null'] },
        /** Why no answer came (refused address, connection failure, timeout). */
        error: { type: ['string', 'null'] },
      },
    },
  },
} as const satisfies JSONSchema;
