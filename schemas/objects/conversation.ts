import type { JSONSchema } from 'json-schema-to-ts';

const timestamp = { type: 'string', format: 'date-time' } as const;

/**
 * The contract's Conversation (v2), plus assignee_id, the v1 note and unread_count (incoming messages since
 * the company last marked it read); last_updated_at is null until the first message.
 */
export const conversationObject = {
  $id: 'objects/conversation',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'company_id',
    'sender_name',
    'sender_phone',
    'sender_external_id',
    'sender_external_public_id',
    'provider',
    'avatar_url',
    'created_at',
    'last_updated_at',
    'last_message_id',
    'operational_state',
    'replied_state',
    'assignee_id',
    'note',
    'unread_count',
    'group',
  ],
  properties: {
    id: { type: 'integer' },
    company_id: { type: 'integer' },
    sender_name: { type: 'string' },
    sender_phone: { type: ['string', 'null'] },
    sender_external_id: { type: 'string' },
    sender_external_public_id: { type: 'string' },
    provider: { type: 'string' },
    avatar_url: { type: 'string' },
    created_at: timestamp,
    last_updated_at: { ...timestamp, type: ['string', 'null'] },
    last_message_id: { type: ['integer', 'null'] },
    operational_state: { type: 'string', enum: ['open', 'archived'] },
    replied_state: { type: 'string', enum: ['replied', 'unreplied'] },
    assignee_id: { type: ['integer', 'null'] },
    note: { type: ['string', 'null'] },
    unread_count: { type: 'integer', minimum: 0 },
    group: { type: 'boolean' },
  },
} as const satisfies JSONSchema;
