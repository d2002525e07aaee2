import { messageEventObject } from '../objects/message-event.js';
import { eventEnvelope } from './envelope.js';

/**
 * `message.create` (an accepted outgoing or a received incoming message) and `message.update`
 * (progress at the provider, a deletion); the object nests its contact and conversation.
 */
export const messageEvent = eventEnvelope('events/message', 'message', ['create', 'update'], messageEventObject);
