import type { JSONSchema } from 'json-schema-to-ts';
import { conversationObject } from './conversation.js';
import { messageObject } from './message.js';

const text = { type: 'string' } as const;
const optionalText = { type: ['string', 'null'] } as const;

/**
 * The contact of an incoming message as its event shows it: the provider's person or group, with the
 * provider's ids (`external_id`, `external_public_id`) and never an `internal_id`.
 */
export const externalContact = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'external_id', 'external_public_id', 'name', 'avatar_url', 'phone'],
  properties: {
    id: { type: 'integer' },
    external_id: text,
    external_public_id: text,
    name: text,
    avatar_url: optionalText,
    phone: optionalText,
  },
} as const satisfies JSONSchema;

/**
 * The contact of an outgoing message as its event shows it: the same contact named by the gateway's
 * own id (`internal_id`), never with the provider's ids (docs/decisions.md, "Hosted-service
 * compatibility (v2)").
 */
export const internalContact = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'internal_id', 'name', 'avatar_url', 'phone'],
  properties: {
    id: { type: 'integer' },
    internal_id: { type: 'integer' },
    name: text,
    avatar_url: optionalText,
    phone: optionalText,
  },
} as const satisfies JSONSchema;

const { $id: _messageId, ...messageShape } = messageObject;

/**
 * The `object` of message events: the Message (v2) with its `contact` and its `conversation`
 * nested, as the hosted service's message-event page shows them. The REST answers carry the Message
 * alone.
 */
export const messageEventObject = {
  ...messageShape,
  required: [...messageShape.required, 'contact', 'conversation'],
  properties: {
    ...messageShape.properties,
    contact: { oneOf: [externalContact, internalContact] },
    conversation: conversationObject,
  },
} as const satisfies JSONSchema;
