import { unixSeconds, v1DateTime } from '../lib/time.js';
import type { ConversationObject } from './conversation.js';
import type { MessageEventObject } from './message-event.js';

/**
 * The v1 payloads of message and conversation events (schemas/events/messaging-v1.ts), for the
 * company's v1 `webhook_url`: built from the v2 event's object, plus what the object does not carry
 * (the channel's id, and the v1 job that sent a message).
 */

/** Where a v1 payload comes from: the v2 event's record, and the channel of its conversation. */
export interface V1Source {
  id: string;
  company_id: number;
  created_at: string;
  channelId: number;
}

/** A v1 payload: the envelope of the v2 event's record around `data`. */
export function v1Payload<T extends string, E extends string, D>(source: V1Source, type: T, event: E, data: D) {
  return { id: source.id, type, event, company_id: source.company_id, created_at: source.created_at, data };
}

/** A message's status as the v1 `ack`: 0 delivering, 1 sent, 2 delivered, 3 read, -1 not delivered. */
const ACK: Record<string, number> = { created: 0, sent: 1, delivered: 2, read: 3, error: -1 };

export function v1Ack(status: string): number {
  return ACK[status] ?? 0;
}

export function presentV1MessageNew(source: V1Source, message: MessageEventObject, jobId: number | null) {
  const created = Date.parse(message.created_at);
  return v1Payload(source, 'message', 'new', {
    external_id: message.id,
    external_public_id: message.external_id,
    channel_id: source.channelId,
    channel_type: message.conversation.provider,
    channel: { id: source.channelId, type: message.conversation.provider },
    conversation_id: message.conversation_id,
    message: message.message,
    location: null,
    income: message.income,
    created_at: v1DateTime(created),
    created_at_timestamp: unixSeconds(created),
    ack: v1Ack(message.status),
    attachments: message.attachments,
    ...(jobId === null ? {} : { job_id: jobId }),
  });
}

export function presentV1MessageAck(source: V1Source, message: MessageEventObject) {
  return v1Payload(source, 'message', 'ack', {
    external_id: message.id,
    channel: { id: source.channelId, type: message.conversation.provider },
    conversation_id: message.conversation_id,
    ack: v1Ack(message.status),
  });
}

export function presentV1Conversation(source: V1Source, event: 'new' | 'update', conversation: ConversationObject) {
  const created = Date.parse(conversation.created_at);
  return v1Payload(source, 'conversation', event, {
    external_id: conversation.id,
    name: conversation.sender_name,
    avatar_url: conversation.avatar_url,
    channel_id: source.channelId,
    channel_type: conversation.provider,
    created_at: v1DateTime(created),
    created_at_timestamp: unixSeconds(created),
    last_message_at: null,
    last_income_message_at: null,
    sender_external_id: conversation.sender_external_id,
  });
}
