import type { JSONSchema } from 'json-schema-to-ts';

const time = { type: 'string', format: 'date-time' } as const;
const timeOrNull = { type: ['string', 'null'], format: 'date-time' } as const;

/**
 * One webhook delivery: one event sent to one endpoint, with the outcome of its latest attempt. The
 * admin API and the portal show it, and it is the `object` of the `delivery.failed` event.
 */
export const deliveryObject = {
  $id: 'objects/delivery',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'event_id',
    'event_type',
    'company_id',
    'endpoint_id',
    'status',
    'held_reason',
    'attempt_count',
    'next_attempt_at',
    'last_status_code',
    'last_error',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'string', pattern: '^dlv_[0-9a-f]+$' },
    /** The event delivered: the `webhook-id` header of every attempt. */
    event_id: { type: 'string' },
    event_type: { type: 'string' },
    company_id: { type: 'integer', minimum: 0 },
    endpoint_id: { type: 'integer', minimum: 0 },
    /** pending, delivered, failed, or held: kept while its endpoint is disabled or an earlier delivery of a strictly ordered one is on its way. */
    status: { type: 'string', enum: ['pending', 'held', 'delivered', 'failed'] },
    /** Why a held delivery waits (`endpoint_disabled`, `ordering`); null otherwise. */
    held_reason: { type: ['string', 'null'] },
    attempt_count: { type: 'integer', minimum: 0 },
    next_attempt_at: timeOrNull,
    last_status_code: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    created_at: time,
    updated_at: time,
  },
} as const satisfies JSONSchema;
