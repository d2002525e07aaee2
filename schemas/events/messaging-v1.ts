import type { JSONSchema } from 'json-schema-to-ts';
import { unixSeconds, v1Payload, v1Time } from './fields.js';

/** An object of exactly these properties, every one required but the `optional` ones. */
function closedObject<P extends Record<string, JSONSchema>>(properties: P, optional: readonly string[] = []) {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    properties,
  } as const;
}

/** A v1 payload whose `data` has the shape `dataByEvent[event]`, for each of its events. */
function v1PayloadByEvent(schemaId: string, type: string, dataByEvent: Record<string, JSONSchema>) {
  return {
    ...v1Payload(schemaId, type, { type: 'string', enum: Object.keys(dataByEvent) }, { type: 'object' }),
    allOf: Object.entries(dataByEvent).map(([event, data]) => ({
      if: { properties: { event: { const: event } } },
      then: { properties: { data } },
    })),
  } as const;
}

const integer = { type: 'integer' } as const;
const string = { type: 'string' } as const;
const nullableString = { type: ['string', 'null'] } as const;
const isoTime = { type: 'string', format: 'date-time' } as const;
/** 0 delivering, 1 sent, 2 delivered, 3 read, -1 not delivered. */
const ack = { type: 'integer', minimum: -1, maximum: 3 } as const;
const channelRef = closedObject({ id: integer, type: string });

/** What a new message says in both renditions, one-to-one and group; `created_at` as each writes times. */
const newMessageFields = {
  external_id: integer,
  external_public_id: nullableString,
  channel_id: integer,
  channel_type: string,
  channel: channelRef,
  conversation_id: integer,
  message: nullableString,
  location: { type: ['object', 'null'] },
  income: { type: 'boolean' },
  created_at_timestamp: unixSeconds,
  ack,
  attachments: { type: 'array', items: { type: 'object' } },
} as const;

/** What an ack says in both renditions. */
const ackFields = { external_id: integer, channel: channelRef, conversation_id: integer, ack } as const;

/**
 * What a new conversation says in both renditions; `created_at` as each writes times;
 * `last_message_at` and `last_income_message_at` are null, as the page shows them.
 */
const newConversationFields = {
  /** The conversation's id. */
  external_id: integer,
  /** The contact's name, a group's title. */
  name: string,
  avatar_url: nullableString,
  channel_id: integer,
  channel_type: string,
  created_at_timestamp: unixSeconds,
  last_message_at: { type: 'null' },
  last_income_message_at: { type: 'null' },
  /** The contact's id at the provider, a group's id at the provider. */
  sender_external_id: string,
} as const;

/**
 * The v1 renditions of the message events that the company's v1 `webhook_url` receives (the v1
 * webhooks page of the hosted service, "New message" and "Message delivery/read status"):
 * `message.create` as `{type: 'message', event: 'new', data}`, `message.update` as
 * `{type: 'message', event: 'ack', data: {external_id, channel, conversation_id, ack}}`. Ids are
 * the gateway's integers, `external_public_id` the provider's message id, times as
 * `2017-11-11 12:45:53 UTC` and unix seconds.
 */
export const messageV1Event = v1PayloadByEvent('events/message-v1', 'message', {
  new: closedObject(
    {
      ...newMessageFields,
      created_at: v1Time,
      /** The v1 write-first job that sent it. */
      job_id: integer,
    },
    ['job_id'],
  ),
  ack: closedObject(ackFields),
}) satisfies JSONSchema;

/**
 * The v1 renditions of the conversation events for the company's v1 `webhook_url` (the v1 webhooks
 * page, "New conversation" and "Update conversation"): `{type: 'conversation', event: 'new' |
 * 'update', data}`.
 */
export const conversationV1Event = v1Payload(
  'events/conversation-v1',
  'conversation',
  { type: 'string', enum: ['new', 'update'] },
  closedObject({ ...newConversationFields, created_at: v1Time }),
) satisfies JSONSchema;

/**
 * The v1 renditions for group chats (the v1 webhooks page, "Group chats: ..."), field by field:
 * `conversation.create` of a group as `{type: 'group_conversation', event: 'new', data}`, times in
 * ISO 8601 (not the one-to-one payloads' `... UTC`). A group's other conversation changes have no
 * documented v1 payload and reach the webhook_url as nothing.
 */
export const groupConversationV1Event = v1Payload(
  'events/group-conversation-v1',
  'group_conversation',
  { const: 'new' },
  closedObject({ ...newConversationFields, created_at: isoTime }),
) satisfies JSONSchema;

/**
 * A message of a group chat: `message.create` as `{type: 'group_message', event: 'new', data}` and
 * `message.update` as `{type: 'group_message', event: 'ack', data}`. `external_public_id` is the
 * author's public id (phone or nickname) of an incoming message and null for an outgoing one;
 * `participant`, the member an ack is about, is null: the providers' receipts into groups do not
 * name them. `external_created_at_timestamp` is the provider's time, `timestamp` the ack's.
 */
export const groupMessageV1Event = v1PayloadByEvent('events/group-message-v1', 'group_message', {
  new: closedObject({ ...newMessageFields, created_at: isoTime, external_created_at_timestamp: unixSeconds }),
  ack: closedObject({
    ...ackFields,
    external_public_id: nullableString,
    participant: nullableString,
    timestamp: unixSeconds,
  }),
}) satisfies JSONSchema;

/**
 * "Group chats: new active member": a member wrote in the group for the first time. Written as its
 * own event, named `group_conversation_contact.new` (src/domain/group-conversations.ts).
 */
export const groupConversationContactV1Event = v1Payload(
  'events/group-conversation-contact-v1',
  'group_conversation_contact',
  { const: 'new' },
  closedObject({
    contact: closedObject({ external_public_id: string }),
    channel_id: integer,
    channel_type: string,
    date_timestamp: unixSeconds,
    conversation_id: integer,
  }),
) satisfies JSONSchema;
