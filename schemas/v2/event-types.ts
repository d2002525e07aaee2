import type { JSONSchema } from 'json-schema-to-ts';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_URL_TEST_EVENT } from '../objects/webhook.js';

/** GET /api/p2/event_types: the event catalog (schemas/events/catalog.ts). */
export const eventTypeListResponse = {
  $id: 'v2/event-type-list-response',
  type: 'object',
  additionalProperties: false,
  required: ['event_types'],
  properties: {
    event_types: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'description', 'filterable', 'schema', 'example'],
        properties: {
          name: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES, 'webhook.test', WEBHOOK_URL_TEST_EVENT] },
          description: { type: 'string' },
          /** Whether a webhook endpoint's `event_types` may name it. */
          filterable: { type: 'boolean' },
          /** The JSON Schema (draft 2020-12) of the body an endpoint receives. */
          schema: { type: 'object' },
          example: { type: 'object' },
        },
      },
    },
  },
} as const satisfies JSONSchema;
