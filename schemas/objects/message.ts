import type { JSONSchema } from 'json-schema-to-ts';
import { attachmentObject } from './attachment.js';

const timestamp = { type: 'string', format: 'date-time' } as const;

/** The contract's Message (v2). */
export const messageObject = {
  $id: 'objects/message',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'external_id',
    'company_id',
    'conversation_id',
    'contact_id',
    'replied_to_id',
    'created_at',
    'external_created_at',
    'income',
    'status',
    'message',
    'reactions',
    'details',
    'delivery',
    'deleted',
    'attachments',
  ],
  properties: {
    id: { type: 'integer' },
    external_id: { type: ['string', 'null'] },
    company_id: { type: 'integer' },
    conversation_id: { type: 'integer' },
    contact_id: { type: 'integer' },
    replied_to_id: { type: ['string', 'null'] },
    // Millisecond precision, UTC.
    created_at: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' },
    external_created_at: timestamp,
    income: { type: 'boolean' },
    status: { type: 'string', enum: ['created', 'sent', 'delivered', 'read', 'error'] },
    message: { type: ['string', 'null'] },
    reactions: { type: 'array' },
    details: {},
    delivery: { type: 'boolean' },
    deleted: { type: 'boolean' },
    attachments: { type: 'array', items: attachmentObject },
  },
} as const satisfies JSONSchema;
