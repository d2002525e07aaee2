import { messageObject } from '../objects/message.js';
import { eventEnvelope } from './envelope.js';

/** `message.create` (an accepted outgoing or a received incoming message) and `message.update` (progress at the provider). */
export const messageEvent = eventEnvelope('events/message', 'message', ['create', 'update'], messageObject);
