import type { JSONSchema } from 'json-schema-to-ts';
import { eventId, unixSeconds, v1Time } from './fields.js';

const channelRef = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type'],
  properties: { id: { type: 'integer' }, type: { type: 'string' } },
} as const;
/** Beside the documented fields, as on every v1 payload: our event id (the `webhook-id`), the company and when it was written. */
const ours = {
  id: eventId,
  company_id: { type: 'integer' },
  created_at: { type: 'string', format: 'date-time' },
} as const;

/**
 * The v1 renditions of the message events that the company's v1 `webhook_url` receives (the v1
 * webhooks page of the hosted service, "New message" and "Message delivery/read status"):
 * `message.create` as `{type: 'message', event: 'new', data}`, `message.update` as
 * `{type: 'message', event: 'ack', data: {external_id, channel, conversation_id, ack}}`. `ack`: 0
 * delivering, 1 sent, 2 delivered, 3 read, -1 not delivered. Ids are the gateway's integers,
 * `external_public_id` the provider's message id, times as `2017-11-11 12:45:53 UTC` and unix seconds.
 */
export const messageV1Event = {
  $id: 'events/message-v1',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'event', 'company_id', 'created_at', 'data'],
  properties: {
    ...ours,
    type: { const: 'message' },
    event: { type: 'string', enum: ['new', 'ack'] },
    data: { type: 'object' },
  },
  allOf: [
    {
      if: { properties: { event: { const: 'new' } } },
      then: {
        properties: {
          data: {
            type: 'object',
            additionalProperties: false,
            required: [
              'external_id',
              'external_public_id',
              'channel_id',
              'channel_type',
              'channel',
              'conversation_id',
              'message',
              'location',
              'income',
              'created_at',
              'created_at_timestamp',
              'ack',
              'attachments',
            ],
            properties: {
              external_id: { type: 'integer' },
              external_public_id: { type: ['string', 'null'] },
              channel_id: { type: 'integer' },
              channel_type: { type: 'string' },
              channel: channelRef,
              conversation_id: { type: 'integer' },
              message: { type: ['string', 'null'] },
              location: { type: ['object', 'null'] },
              income: { type: 'boolean' },
              created_at: v1Time,
              created_at_timestamp: unixSeconds,
              ack: { type: 'integer', minimum: -1, maximum: 3 },
              attachments: { type: 'array', items: { type: 'object' } },
              /** The v1 write-first job that sent it. */
              job_id: { type: 'integer' },
            },
          },
        },
      },
    },
    {
      if: { properties: { event: { const: 'ack' } } },
      then: {
        properties: {
          data: {
            type: 'object',
            additionalProperties: false,
            required: ['external_id', 'channel', 'conversation_id', 'ack'],
            properties: {
              external_id: { type: 'integer' },
              channel: channelRef,
              conversation_id: { type: 'integer' },
              ack: { type: 'integer', minimum: -1, maximum: 3 },
            },
          },
        },
      },
    },
  ],
} as const satisfies JSONSchema;

/**
 * The v1 renditions of the conversation events for the company's v1 `webhook_url` (the v1 webhooks
 * page, "New conversation" and "Update conversation"): `{type: 'conversation', event: 'new' |
 * 'update', data}`; `last_message_at` and `last_income_message_at` are null, as the page shows them.
 */
export const conversationV1Event = {
  $id: 'events/conversation-v1',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'event', 'company_id', 'created_at', 'data'],
  properties: {
    ...ours,
    type: { const: 'conversation' },
    event: { type: 'string', enum: ['new', 'update'] },
    data: {
      type: 'object',
      additionalProperties: false,
      required: [
        'external_id',
        'name',
        'avatar_url',
        'channel_id',
        'channel_type',
        'created_at',
        'created_at_timestamp',
        'last_message_at',
        'last_income_message_at',
        'sender_external_id',
      ],
      properties: {
        external_id: { type: 'integer' },
        name: { type: 'string' },
        avatar_url: { type: ['string', 'null'] },
        channel_id: { type: 'integer' },
        channel_type: { type: 'string' },
        created_at: v1Time,
        created_at_timestamp: unixSeconds,
        last_message_at: { type: 'null' },
        last_income_message_at: { type: 'null' },
        sender_external_id: { type: 'string' },
      },
    },
  },
} as const satisfies JSONSchema;

const isoTime = { type: 'string', format: 'date-time' } as const;

/**
 * The v1 renditions for group chats (the v1 webhooks page, "Group chats: ..."), field by field:
 * `conversation.create` of a group as `{type: 'group_conversation', event: 'new', data}`, times in
 * ISO 8601 (not the one-to-one payloads' `... UTC`). A group's other conversation changes have no
 * documented v1 payload and reach the webhook_url as nothing.
 */
export const groupConversationV1Event = {
  $id: 'events/group-conversation-v1',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'event', 'company_id', 'created_at', 'data'],
  properties: {
    ...ours,
    type: { const: 'group_conversation' },
    event: { const: 'new' },
    data: {
      type: 'object',
      additionalProperties: false,
      required: [
        'name',
        'avatar_url',
        'channel_id',
        'created_at',
        'external_id',
        'channel_type',
        'last_message_at',
        'sender_external_id',
        'created_at_timestamp',
        'last_income_message_at',
      ],
      properties: {
        /** The group's title. */
        name: { type: 'string' },
        avatar_url: { type: ['string', 'null'] },
        channel_id: { type: 'integer' },
        created_at: isoTime,
        /** The conversation's id. */
        external_id: { type: 'integer' },
        channel_type: { type: 'string' },
        last_message_at: { type: 'null' },
        /** The group's id at the provider. */
        sender_external_id: { type: 'string' },
        created_at_timestamp: unixSeconds,
        last_income_message_at: { type: 'null' },
      },
    },
  },
} as const satisfies JSONSchema;

/**
 * A message of a group chat: `message.create` as `{type: 'group_message', event: 'new', data}` and
 * `message.update` as `{type: 'group_message', event: 'ack', data}`. `external_public_id` is the
 * author's public id (phone or nickname) of an incoming message and null for an outgoing one;
 * `participant`, the member an ack is about, is null: the providers' receipts into groups do not
 * name them. `external_created_at_timestamp` is the provider's time, `timestamp` the ack's.
 */
export const groupMessageV1Event = {
  $id: 'events/group-message-v1',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'event', 'company_id', 'created_at', 'data'],
  properties: {
    ...ours,
    type: { const: 'group_message' },
    event: { type: 'string', enum: ['new', 'ack'] },
    data: { type: 'object' },
  },
  allOf: [
    {
      if: { properties: { event: { const: 'new' } } },
      then: {
        properties: {
          data: {
            type: 'object',
            additionalProperties: false,
            required: [
              'ack',
              'income',
              'channel',
              'message',
              'location',
              'channel_id',
              'created_at',
              'attachments',
              'external_id',
              'channel_type',
              'conversation_id',
              'external_public_id',
              'created_at_timestamp',
              'external_created_at_timestamp',
            ],
            properties: {
              ack: { type: 'integer', minimum: -1, maximum: 3 },
              income: { type: 'boolean' },
              channel: channelRef,
              message: { type: ['string', 'null'] },
              location: { type: ['object', 'null'] },
              channel_id: { type: 'integer' },
              created_at: isoTime,
              attachments: { type: 'array', items: { type: 'object' } },
              external_id: { type: 'integer' },
              channel_type: { type: 'string' },
              conversation_id: { type: 'integer' },
              external_public_id: { type: ['string', 'null'] },
              created_at_timestamp: unixSeconds,
              external_created_at_timestamp: unixSeconds,
            },
          },
        },
      },
    },
    {
      if: { properties: { event: { const: 'ack' } } },
      then: {
        properties: {
          data: {
            type: 'object',
            additionalProperties: false,
            required: [
              'channel',
              'timestamp',
              'external_id',
              'participant',
              'conversation_id',
              'external_public_id',
              'ack',
            ],
            properties: {
              channel: channelRef,
              timestamp: unixSeconds,
              external_id: { type: 'integer' },
              participant: { type: ['string', 'null'] },
              conversation_id: { type: 'integer' },
              external_public_id: { type: ['string', 'null'] },
              ack: { type: 'integer', minimum: -1, maximum: 3 },
            },
          },
        },
      },
    },
  ],
} as const satisfies JSONSchema;

/**
 * "Group chats: new active member": a member wrote in the group for the first time. Written as its
 * own event, named `group_conversation_contact.new` (src/domain/group-conversations.ts).
 */
export const groupConversationContactV1Event = {
  $id: 'events/group-conversation-contact-v1',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'event', 'company_id', 'created_at', 'data'],
  properties: {
    ...ours,
    type: { const: 'group_conversation_contact' },
    event: { const: 'new' },
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['contact', 'channel_id', 'channel_type', 'date_timestamp', 'conversation_id'],
      properties: {
        contact: {
          type: 'object',
          additionalProperties: false,
          required: ['external_public_id'],
          properties: { external_public_id: { type: 'string' } },
        },
        channel_id: { type: 'integer' },
        channel_type: { type: 'string' },
        date_timestamp: unixSeconds,
        conversation_id: { type: 'integer' },
      },
    },
  },
} as const satisfies JSONSchema;
