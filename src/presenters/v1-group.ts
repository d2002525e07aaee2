import { unixSeconds } from '../lib/time.js';
import type { ConversationObject } from './conversation.js';
import type { MessageEventObject } from './message-event.js';
import { v1Ack, v1Payload, type V1Source } from './v1-messaging.js';

/**
 * The v1 payloads of group chats (schemas/events/messaging-v1.ts, the "Group chats" entries of the
 * hosted service's v1 webhooks page), built from the v2 event's object like the one-to-one ones.
 */

export function presentV1GroupConversationNew(source: V1Source, conversation: ConversationObject) {
  const created = Date.parse(conversation.created_at);
  return v1Payload(source, 'group_conversation', 'new', {
    name: conversation.sender_name,
    avatar_url: conversation.avatar_url === '' ? null : conversation.avatar_url,
    channel_id: source.channelId,
    created_at: new Date(created).toISOString(),
    external_id: conversation.id,
    channel_type: conversation.provider,
    last_message_at: null,
    sender_external_id: conversation.sender_external_id,
    created_at_timestamp: unixSeconds(created),
    last_income_message_at: null,
  });
}

export function presentV1GroupMessageNew(source: V1Source, message: MessageEventObject) {
  const created = Date.parse(message.created_at);
  return v1Payload(source, 'group_message', 'new', {
    ack: v1Ack(message.status),
    income: message.income,
    channel: { id: source.channelId, type: message.conversation.provider },
    message: message.message,
    location: null,
    channel_id: source.channelId,
    created_at: new Date(created).toISOString(),
    attachments: message.attachments,
    external_id: message.id,
    channel_type: message.conversation.provider,
    conversation_id: message.conversation_id,
    external_public_id: authorPublicId(message),
    created_at_timestamp: unixSeconds(created),
    external_created_at_timestamp: unixSeconds(Date.parse(message.external_created_at)),
  });
}

export function presentV1GroupMessageAck(source: V1Source, message: MessageEventObject) {
  return v1Payload(source, 'group_message', 'ack', {
    channel: { id: source.channelId, type: message.conversation.provider },
    timestamp: unixSeconds(Date.parse(source.created_at)),
    external_id: message.id,
    participant: null,
    conversation_id: message.conversation_id,
    external_public_id: authorPublicId(message),
    ack: v1Ack(message.status),
  });
}

/** The public id of an incoming message's author (the contact of its event); null for an outgoing one. */
function authorPublicId(message: MessageEventObject): string | null {
  return 'external_public_id' in message.contact ? message.contact.external_public_id : null;
}
