import { conversationObject } from '../objects/conversation.js';
import { eventEnvelope } from './envelope.js';

/** `conversation.create` for a new conversation, `conversation.update` on state, assignee, note or sender changes. */
export const conversationEvent = eventEnvelope(
  'events/conversation',
  'conversation',
  ['create', 'update'],
  conversationObject,
);
