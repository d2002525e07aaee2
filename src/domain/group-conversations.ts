import { unixSeconds } from '../lib/time.js';
import type { ChannelRow } from '../store/resources/channels.js';
import type { ContactRow } from '../store/resources/contacts.js';
import type { ConversationRow } from '../store/resources/conversations.js';
import type { Store } from '../store/store.js';
import { writeEvent } from './events.js';
import type { SenderProfile } from './provider-facts.js';

/**
 * Group conversations: a group chat is one conversation (its contact is the group), the members who
 * write in it are its participants, and each message's contact is the member who wrote it.
 */

/**
 * The contact of a group message's author (the same contact as their private chat on the channel,
 * profile brought up to date) and whether they joined the group's participants just now.
 */
export function joinAuthor(
  store: Store,
  channel: Pick<ChannelRow, 'id' | 'company_id'>,
  conversation: Pick<ConversationRow, 'id'>,
  sender: SenderProfile,
  ms: number,
): { author: ContactRow; joined: boolean } {
  const { contact } = store.contacts.findOrCreate(
    {
      companyId: channel.company_id,
      channelId: channel.id,
      externalId: sender.externalId,
      externalPublicId: sender.externalPublicId,
      name: sender.name,
      phone: sender.phone,
    },
    ms,
  );
  const { contact: author } = store.contacts.refreshProfile(
    contact,
    {
      name: sender.name,
      externalPublicId: sender.externalPublicId,
      phone: sender.phone,
      ...(sender.avatarUrl === undefined ? {} : { avatarUrl: sender.avatarUrl }),
    },
    ms,
  );
  return { author, joined: store.participants.add(conversation.id, author.id, ms) };
}

/**
 * Appends the hosted service's v1 "Group chats: new active member" payload, named
 * `group_conversation_contact.new` (schemas/events/messaging-v1.ts): a member wrote in the group
 * for the first time. Delivered like the other v1 payloads (job.executed): to the company's v1
 * webhook_url, and to the endpoints whose filter takes it; v2 clients read the member in the
 * conversation's `participants` (its `conversation.update`).
 */
export function recordParticipantJoined(
  store: Store,
  channel: Pick<ChannelRow, 'company_id' | 'id' | 'provider'>,
  conversation: Pick<ConversationRow, 'id'>,
  author: Pick<ContactRow, 'external_public_id'>,
  now: Date,
): void {
  writeEvent(store.outbox, channel.company_id, 'group_conversation_contact.new', now, (id, createdAt) => ({
    id,
    type: 'group_conversation_contact',
    event: 'new',
    company_id: channel.company_id,
    created_at: createdAt,
    data: {
      contact: { external_public_id: author.external_public_id },
      channel_id: channel.id,
      channel_type: channel.provider,
      date_timestamp: unixSeconds(now.getTime()),
      conversation_id: conversation.id,
    },
  }));
}
