import type { MessageEventObject } from '../presenters/message-event.js';
import type { ConversationObject } from '../presenters/conversation.js';
import {
  presentV1GroupConversationNew,
  presentV1GroupMessageAck,
  presentV1GroupMessageNew,
} from '../presenters/v1-group.js';
import {
  presentV1Conversation,
  presentV1MessageAck,
  presentV1MessageNew,
  type V1Source,
} from '../presenters/v1-messaging.js';
import type { Store } from '../store/store.js';
import type { EventRecord } from '../streams/catalog.js';

/** The events the company's v1 `webhook_url` receives in their v1 rendition (schemas/events/messaging-v1.ts). */
export const V1_RENDERED_EVENTS: ReadonlySet<string> = new Set([
  'message.create',
  'message.update',
  'conversation.create',
  'conversation.update',
]);

/**
 * The v1 rendition of a message or conversation event: the same record (id, company, name, time:
 * one `webhook-id` for both renditions) with the v1 payload as its body, the group chat payloads
 * for a group's. Reads the conversation's channel, and for an outgoing message its v1 job. Null
 * when the conversation is gone, or for a change the v1 payloads have no word for.
 */
export function v1RenditionOf(store: Store, event: EventRecord): EventRecord | null {
  const [type, action] = event.name.split('.') as [string, string];
  const object = event.body.object as { conversation_id?: number; id: number };
  const conversationId = type === 'message' ? object.conversation_id! : object.id;
  const channelId = store.conversations.find(event.company_id, conversationId)?.channel_id;
  if (channelId === undefined) return null;
  const source = { id: event.id, company_id: event.company_id, created_at: event.created_at, channelId };
  const group =
    type === 'conversation' ? (object as ConversationObject).group : (object as MessageEventObject).conversation.group;
  if (group) return groupRenditionOf(event, source, type, action);
  if (type === 'conversation')
    return {
      ...event,
      body: presentV1Conversation(
        source,
        action === 'create' ? 'new' : 'update',
        event.body.object as ConversationObject,
      ),
    };
  const message = event.body.object as MessageEventObject;
  if (action === 'update') return { ...event, body: presentV1MessageAck(source, message) };
  return {
    ...event,
    body: presentV1MessageNew(source, message, message.income ? null : store.v1Jobs.jobIdOfMessage(message.id)),
  };
}

/** A group's events in v1: `group_conversation` new, `group_message` new and ack; a group's conversation update has none. */
function groupRenditionOf(event: EventRecord, source: V1Source, type: string, action: string): EventRecord | null {
  if (type === 'conversation')
    return action === 'create'
      ? { ...event, body: presentV1GroupConversationNew(source, event.body.object as ConversationObject) }
      : null;
  const message = event.body.object as MessageEventObject;
  return {
    ...event,
    body: action === 'create' ? presentV1GroupMessageNew(source, message) : presentV1GroupMessageAck(source, message),
  };
}
