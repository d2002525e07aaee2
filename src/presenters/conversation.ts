import type { FromSchema } from 'json-schema-to-ts';
import type { conversationObject } from '../../schemas/objects/conversation.js';
import { toIso } from '../lib/time.js';
import type { ConversationRow } from '../store/resources/conversations.js';

/** The contract's Conversation (v2), as schemas/objects/conversation.ts describes it. */
export type ConversationObject = FromSchema<typeof conversationObject>;

/**
 * The contract's Conversation (v2), plus assignee_id, which PUT sets, the v1 note, the unread count
 * and a group's participants.
 * `last_updated_at` is null until the first message, like `last_message_id` (the hosted service's pages).
 */
export function presentConversation(row: ConversationRow): ConversationObject {
  return {
    id: row.id,
    company_id: row.company_id,
    sender_name: row.contact_name,
    sender_phone: row.contact_phone,
    sender_external_id: row.contact_external_id,
    sender_external_public_id: row.contact_external_public_id,
    provider: row.provider,
    avatar_url: row.contact_avatar_url,
    created_at: toIso(row.created_at),
    last_updated_at: row.last_message_id === null ? null : toIso(row.last_updated_at),
    last_message_id: row.last_message_id,
    operational_state: row.operational_state,
    replied_state: row.replied_state,
    assignee_id: row.assignee_id,
    note: row.note,
    unread_count: row.unread_count,
    group: row.contact_is_group === 1,
    participants: JSON.parse(row.participants) as ConversationObject['participants'],
  };
}
