import type { JSONSchema } from 'json-schema-to-ts';
import { endpointFilterObject } from './endpoint-filter.js';
import { kafkaObject, rabbitmqObject, sqsObject } from './destination.js';

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
  'contact.delete',
  'channel.qr_code',
  'channel.code',
  'channel.state',
  'channel.pages',
  'job.executed',
  'group_conversation_contact.new',
  'webhook.disabled',
  'webhook.enabled',
  'delivery.failed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * What the company's v1 `webhook_url` receives: the v1 payloads only (the v1 webhooks page of the
 * hosted service), the message and conversation events in their v1 rendition
 * (schemas/events/messaging-v1.ts). The v2 envelope would break a v1 handler: `{type:
 * 'conversation', event: 'update', object}` reads as the v1 conversation update without its `data`.
 */
export const V1_WEBHOOK_EVENT_TYPES = [
  'message.create',
  'message.update',
  'conversation.create',
  'conversation.update',
  'channel.qr_code',
  'channel.code',
  'channel.state',
  'channel.pages',
  'job.executed',
  'group_conversation_contact.new',
] as const satisfies readonly WebhookEventType[];

/**
 * The test POST sent to a company's `webhook_url` when it is set or changed (`{source, operation:
 * 'test'}`): to that endpoint only, whatever its event filter.
 */
export const WEBHOOK_URL_TEST_EVENT = 'webhook_url.test';

const timestamp = { type: 'string', format: 'date-time' } as const;

/** `strict`: an event is sent only once every earlier event of the endpoint was delivered or failed for good. */
export const WEBHOOK_ORDERINGS = ['default', 'strict'] as const;

/** The highest `rate_limit` (deliveries per second) an endpoint may ask for. */
export const MAX_WEBHOOK_RATE_LIMIT = 1000;

/** The most automatic attempts an endpoint's own retry schedule may make (the operator may allow fewer). */
export const MAX_ENDPOINT_RETRY_ATTEMPTS = 20;
/** The longest delay, in seconds, an endpoint's own retry schedule may name (the operator may allow less): 7 days. */
export const MAX_ENDPOINT_RETRY_DELAY_S = 604_800;

/** A company webhook endpoint. `secret` is present only in the answers of create and rotate_secret. */
export const webhookObject = {
  $id: 'objects/webhook',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'company_id',
    'source',
    'url',
    'event_types',
    'active',
    'disabled_reason',
    'ordering',
    'rate_limit',
    'previous_secret_expires_at',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'integer', minimum: 1 },
    company_id: { type: 'integer', minimum: 1 },
    /** `company`: the company's v1 webhook_url; `api`: created here. */
    source: { type: 'string', enum: ['company', 'api'] },
    url: { type: 'string' },
    event_types: { type: ['array', 'null'], items: { type: 'string', enum: WEBHOOK_EVENT_TYPES } },
    active: { type: 'boolean' },
    disabled_reason: { type: ['string', 'null'] },
    ordering: { type: 'string', enum: WEBHOOK_ORDERINGS },
    /** Deliveries per second at most; null: no limit. */
    rate_limit: { type: ['integer', 'null'], minimum: 1, maximum: MAX_WEBHOOK_RATE_LIMIT },
    /** Until then the secret replaced by the last rotation still signs deliveries. */
    previous_secret_expires_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: timestamp,
    updated_at: timestamp,
    /** A `whsec_` secret (HMAC-SHA256, `v1`), or for an ed25519 endpoint its `whsk_` private key (`v1a`). */
    secret: { type: 'string', pattern: '^(whsec_[A-Za-z0-9+/]{32}|whsk_[A-Za-z0-9+/]{43}=)$' },
    /** Present for an endpoint that signs with ed25519 (Standard Webhooks `v1a`). */
    signing_algorithm: { type: 'string', enum: ['ed25519'] },
    /** Present for an ed25519 endpoint: the `whpk_` public key its receivers verify with. */
    public_key: { type: 'string', pattern: '^whpk_[A-Za-z0-9+/]{43}=$' },
    /** Present when the endpoint has a retry schedule of its own: seconds before each retry after the first attempt. */
    retry_schedule: {
      type: 'array',
      items: { type: 'integer', minimum: 1, maximum: MAX_ENDPOINT_RETRY_DELAY_S },
      maxItems: MAX_ENDPOINT_RETRY_ATTEMPTS - 1,
    },
    /** Present when the endpoint has a payload filter: only events whose envelope matches it are queued for it. */
    filter: endpointFilterObject,
    /**
     * Present for an endpoint that is not a webhook: `kafka`, `rabbitmq` or `sqs`, with its settings under
     * that name (credentials never shown) and, as `url`, its target without credentials.
     */
    type: { type: 'string', enum: ['kafka', 'rabbitmq', 'sqs'] },
    kafka: kafkaObject,
    rabbitmq: rabbitmqObject,
    sqs: sqsObject,
  },
} as const satisfies JSONSchema;
