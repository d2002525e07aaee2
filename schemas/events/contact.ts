import type { JSONSchema } from 'json-schema-to-ts';
import { eventId } from './fields.js';

/**
 * The v2 contact event: `delete` when a contact is erased (DELETE
 * /api/p2/companies/<id>/contacts/<id>). The object names ids only: the contact's name, phone and
 * the rest of its data are what the erasure removes.
 */
export const contactEvent = {
  $id: 'events/contact',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'event', 'type', 'created_at', 'object'],
  properties: {
    id: eventId,
    event: { type: 'string', enum: ['delete'] },
    type: { type: 'string', const: 'contact' },
    created_at: { type: 'string', format: 'date-time' },
    object: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'company_id', 'conversation_ids', 'deleted_at'],
      properties: {
        id: { type: 'integer' },
        company_id: { type: 'integer' },
        /** The conversations that went with the contact. */
        conversation_ids: { type: 'array', items: { type: 'integer' } },
        deleted_at: { type: 'string', format: 'date-time' },
      },
    },
  },
} as const satisfies JSONSchema;
