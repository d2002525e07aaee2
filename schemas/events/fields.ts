import type { JSONSchema } from 'json-schema-to-ts';

/** An event's id: the `webhook-id` header of each of its deliveries, the same across redeliveries. */
export const eventId = { type: 'string', pattern: '^evt_[0-9a-f]{32}$' } as const;

/** Unix seconds, which the v1 payloads carry beside their times. */
export const unixSeconds = { type: 'integer', minimum: 0 } as const;

/** `2017-11-11 12:45:53 UTC`, as the v1 pages write times. */
export const v1Time = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} UTC$' } as const;

/**
 * A v1 payload: `{id, type, event, company_id, created_at, data}` and nothing else. Beside the
 * documented fields, as on every v1 payload: our event id (the `webhook-id`), the company and when
 * it was written.
 */
export function v1Payload<E extends JSONSchema, D extends JSONSchema>(
  schemaId: string,
  type: string,
  event: E,
  data: D,
) {
  return {
    $id: schemaId,
    type: 'object',
    additionalProperties: false,
    required: ['id', 'type', 'event', 'company_id', 'created_at', 'data'],
    properties: {
      id: eventId,
      company_id: { type: 'integer' },
      created_at: { type: 'string', format: 'date-time' },
      type: { const: type },
      event,
      data,
    },
  } as const;
}
