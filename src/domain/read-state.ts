import { READ_RECEIPT_PROVIDERS } from '../../schemas/provider-capabilities.js';
import type { ConversationRow } from '../store/resources/conversations.js';
import type { Store } from '../store/store.js';
import { changeConversation } from './messaging.js';
import { queueMessageAction } from './message-actions.js';

/**
 * The channel setting that keeps read receipts from the provider (the hosted service's
 * `do_not_mark_as_read`, given when the channel or auth is created).
 */
export const DO_NOT_MARK_AS_READ = 'do_not_mark_as_read';

/**
 * Marks a conversation read (POST /api/p2/conversations/<id>/read): its unread count goes to 0 with
 * a `conversation.update`, and the provider is told the chat was read up to the latest incoming
 * message, where it takes read receipts (the capability table), the channel can send and was not
 * created with `do_not_mark_as_read`. A conversation without unread messages changes nothing and
 * sends nothing. All in the caller's transaction; answers the conversation as it is now.
 */
export function markConversationRead(store: Store, conversation: ConversationRow, now = new Date()): ConversationRow {
  if (conversation.unread_count === 0) return conversation;
  const updated = changeConversation(store, conversation, { unread_count: 0 }, now);
  if (takesReadReceipt(store, conversation)) {
    const latest = store.messages.lastIncoming(conversation.id);
    if (latest?.external_id !== undefined && latest.external_id !== null)
      queueMessageAction(store, conversation, latest.id, latest.external_id, { action: 'read' }, now);
  }
  return updated;
}

function takesReadReceipt(store: Store, conversation: ConversationRow): boolean {
  if (!(READ_RECEIPT_PROVIDERS as readonly string[]).includes(conversation.provider)) return false;
  if (conversation.channel_deleted_at !== null || conversation.channel_state !== 'enabled') return false;
  const channel = store.channels.findLive(conversation.channel_id);
  return channel !== undefined && channel.settings[DO_NOT_MARK_AS_READ] !== true;
}
