import type { JSONSchema } from 'json-schema-to-ts';

/**
 * Filter of the delivery list and of a bulk replay (times are ISO 8601 date-times). Unknown fields
 * are refused, not ignored: a misspelled filter would widen a list or a replay to everything.
 */
const filterProperties = {
  company_id: { type: 'integer', minimum: 1 },
  endpoint_id: { type: 'integer', minimum: 1 },
  status: {
    type: 'string',
    enum: ['pending', 'held', 'delivered', 'failed'],
    description:
      'held: pending, and waiting for its endpoint to be enabled or for earlier deliveries of a strictly ordered endpoint',
  },
  event_type: { type: 'string', minLength: 1, maxLength: 100, description: 'event name, e.g. message.create' },
  event_id: {
    type: 'string',
    minLength: 1,
    maxLength: 100,
    description: 'the event id, which is the webhook-id header of its deliveries',
  },
  since: { type: 'string', format: 'date-time' },
  until: { type: 'string', format: 'date-time' },
} as const;

export const adminDeliveryListQuery = {
  $id: 'admin/delivery-list-query',
  type: 'object',
  additionalProperties: false,
  properties: {
    ...filterProperties,
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    cursor: { type: 'string', maxLength: 100, description: 'next_cursor of the previous page' },
  },
} as const satisfies JSONSchema;

export const adminBulkReplayBody = {
  $id: 'admin/bulk-replay-body',
  type: 'object',
  additionalProperties: false,
  properties: filterProperties,
} as const satisfies JSONSchema;

/** POST /admin/companies/<id>/endpoints/<id>/disable */
export const adminEndpointDisableBody = {
  $id: 'admin/endpoint-disable-body',
  type: 'object',
  properties: {
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      default: 'disabled by an operator',
      description: 'shown as disabled_reason',
    },
  },
} as const satisfies JSONSchema;
