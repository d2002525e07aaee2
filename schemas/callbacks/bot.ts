import type { JSONSchema } from 'json-schema-to-ts';

/** Unix seconds, bounded like the connector's: beyond this the time is no date (and * 1000 leaves Date's range). */
const unixSeconds = { type: 'integer', minimum: 0, maximum: 99_999_999_999 } as const;

const fileRef = {
  file_id: { type: 'string', minLength: 1 },
  file_unique_id: { type: 'string' },
  file_size: { type: 'integer', minimum: 0 },
} as const;

const user = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'integer' },
    is_bot: { type: 'boolean' },
    first_name: { type: 'string' },
    last_name: { type: 'string' },
    username: { type: 'string' },
  },
} as const;

const botMessage = {
  type: 'object',
  required: ['message_id', 'chat', 'date'],
  properties: {
    message_id: { type: 'integer', minimum: 0 },
    from: user,
    chat: {
      type: 'object',
      required: ['id', 'type'],
      properties: {
        id: { type: 'integer' },
        type: { type: 'string', enum: ['private', 'group', 'supergroup', 'channel'] },
        title: { type: 'string' },
        username: { type: 'string' },
        first_name: { type: 'string' },
        last_name: { type: 'string' },
      },
    },
    date: unixSeconds,
    edit_date: unixSeconds,
    text: { type: 'string' },
    caption: { type: 'string' },
    photo: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['file_id', 'width', 'height'],
        properties: { ...fileRef, width: { type: 'integer' }, height: { type: 'integer' } },
      },
    },
    voice: {
      type: 'object',
      required: ['file_id'],
      properties: { ...fileRef, duration: { type: 'integer' }, mime_type: { type: 'string' } },
    },
    audio: {
      type: 'object',
      required: ['file_id'],
      properties: {
        ...fileRef,
        duration: { type: 'integer' },
        mime_type: { type: 'string' },
        file_name: { type: 'string' },
      },
    },
    video: {
      type: 'object',
      required: ['file_id'],
      properties: {
        ...fileRef,
        width: { type: 'integer' },
        height: { type: 'integer' },
        mime_type: { type: 'string' },
        file_name: { type: 'string' },
      },
    },
    document: {
      type: 'object',
      required: ['file_id'],
      properties: { ...fileRef, file_name: { type: 'string' }, mime_type: { type: 'string' } },
    },
    sticker: {
      type: 'object',
      required: ['file_id'],
      properties: {
        ...fileRef,
        width: { type: 'integer' },
        height: { type: 'integer' },
        emoji: { type: 'string' },
        is_animated: { type: 'boolean' },
      },
    },
    location: {
      type: 'object',
      required: ['latitude', 'longitude'],
      properties: { latitude: { type: 'number' }, longitude: { type: 'number' } },
    },
    reply_to_message: { type: 'object', required: ['message_id'], properties: { message_id: { type: 'integer' } } },
  },
} as const;

const chatRef = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer' } },
} as const;

/** One reaction: an emoji, a custom emoji or a paid star; the gateway keeps emoji only. */
const reactionType = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' }, emoji: { type: 'string', maxLength: 64 } },
} as const;

/** A person (or a chat acting for them) changed their reactions to a message. */
const messageReaction = {
  type: 'object',
  required: ['chat', 'message_id', 'date', 'old_reaction', 'new_reaction'],
  properties: {
    chat: chatRef,
    message_id: { type: 'integer', minimum: 0 },
    user: user,
    actor_chat: chatRef,
    date: unixSeconds,
    old_reaction: { type: 'array', items: reactionType },
    new_reaction: { type: 'array', items: reactionType },
  },
} as const;

/** Messages deleted in a chat of a connected business account. */
const deletedBusinessMessages = {
  type: 'object',
  required: ['chat', 'message_ids'],
  properties: {
    business_connection_id: { type: 'string' },
    chat: chatRef,
    message_ids: { type: 'array', items: { type: 'integer', minimum: 0 } },
  },
} as const;

/**
 * A bot-style API update (`chat_b`, docs/design.md section 5): `update_id` and one of `message`,
 * `edited_message`, `message_reaction`, `deleted_business_messages`, ... Kinds the gateway does not handle (callback queries, member updates) are
 * accepted and acknowledged without effect, as the provider would otherwise retry them.
 */
export const botUpdate = {
  $id: 'callbacks/bot',
  type: 'object',
  required: ['update_id'],
  properties: {
    update_id: { type: 'integer', minimum: 0 },
    message: botMessage,
    edited_message: botMessage,
    channel_post: botMessage,
    edited_channel_post: botMessage,
    message_reaction: messageReaction,
    deleted_business_messages: deletedBusinessMessages,
  },
} as const satisfies JSONSchema;
