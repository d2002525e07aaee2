import type { JSONSchema } from 'json-schema-to-ts';

const timestamp = { type: 'string', format: 'date-time' } as const;

/** A member of a group conversation: a contact of the channel, with the provider's ids. */
export const participantObject = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'phone', 'avatar_url', 'external_id', 'external_public_id'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    phone: { type: ['string', 'null'] },
    avatar_url: { type: 'string' },
    external_id: { type: 'string' },
    external_public_id: { type: 'string' },
  },
} as const satisfies JSONSchema;

/**
 * The contract's Conversation (v2), plus assignee_id, the v1 note, unread_count (incoming messages
 * since the company last marked it read) and, for a group (`group: true`,
 * `sender_name` its title), its `participants`: the members who wrote in it, oldest first (empty
 * for a person's conversation). last_updated_at is null until the first message.
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
    'participants',
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
    participants: { type: 'array', items: participantObject },
  },
} as const satisfies JSONSchema;
