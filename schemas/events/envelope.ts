import { eventId } from './fields.js';

/**
 * The v2 event envelope (docs/design.md section 6): `{id, event, type, created_at, object}`, where
 * `object` is the same presentation the REST API returns. `id` is the webhook-id of every delivery.
 */
export function eventEnvelope<const T extends string, const E extends readonly string[], const O extends object>(
  id: string,
  type: T,
  events: E,
  object: O,
) {
  return {
    $id: id,
    type: 'object',
    additionalProperties: false,
    required: ['id', 'event', 'type', 'created_at', 'object'],
    properties: {
      id: eventId,
      event: { type: 'string', enum: events },
      type: { const: type },
      created_at: { type: 'string', format: 'date-time' },
      object,
    },
  } as const;
}
