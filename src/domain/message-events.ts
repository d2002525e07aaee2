import type { Presenters } from '../presenters/presenters.js';
import type { AttachmentRow } from '../store/resources/attachments.js';
import type { ConversationRow } from '../store/resources/conversations.js';
import type { MessageRow } from '../store/resources/messages.js';
import type { Store } from '../store/store.js';
import type { EventRecord } from '../streams/catalog.js';
import { recordEvent } from './events.js';

/**
 * Appends `message.create` or `message.update` with the message, its contact (in a group, the
 * member who wrote it) and its conversation (schemas/events/message.ts). `conversation` is the conversation as the same transaction left it;
 * when not given it is read. Call it inside the transaction of the change it reports.
 */
export function recordMessageEvent(
  store: Store,
  event: 'create' | 'update',
  message: MessageRow,
  attachments: readonly AttachmentRow[],
  presenters: Presenters,
  now: Date,
  conversation: ConversationRow | undefined = store.conversations.find(message.company_id, message.conversation_id),
): EventRecord {
  if (conversation === undefined)
    throw new Error(`Message ${message.id} has no conversation ${message.conversation_id}.`);
  // A group message's contact is its author, not the group.
  const author =
    message.contact_id === conversation.contact_id
      ? undefined
      : store.contacts.find(message.company_id, message.contact_id);
  return recordEvent(
    store.outbox,
    message.company_id,
    'message',
    event,
    presenters.messageEvent(message, attachments, conversation, author),
    now,
  );
}
