import { randomBytes } from 'node:crypto';
import { presentConversation } from '../presenters/conversation.js';
import type { IncomingMessageItem, IngestBatch } from './provider-facts.js';
import { NotFound } from '../errors/errors.js';
import type { AttachmentRow } from '../store/resources/attachments.js';
import type { ChannelApi } from '../store/resources/callbacks.js';
import type { ChannelRow } from '../store/resources/channels.js';
import type { Store } from '../store/store.js';
import { applyChannelState, recordAuthSignal, recordSystemNotice } from './channel-events.js';
import { recordEvent } from './events.js';
import { joinAuthor, recordParticipantJoined } from './group-conversations.js';
import { recordMessageEvent } from './message-events.js';
import { applyDeletion, applyEdit, applyReaction } from './message-changes.js';
import { applySendOutcome, applyStatus } from './outgoing-status.js';
import type { Presenters } from '../presenters/presenters.js';

/** What a callback changed: counts for the log (never contents). */
export interface IngestOutcome {
  duplicate: boolean;
  messages: number;
  events: number;
}

/**
 * Applies a normalized callback in ONE transaction (docs/design.md sections 4 to 6): contacts,
 * conversations, messages, attachments, statuses, channel state and every event they cause.
 * Deduplication: a message id the channel already has, or the receipt of a batch that carries more
 * than messages (edits, reactions, statuses...) already claimed, changes nothing and writes no
 * event. `target.api` is the channel's callback settings' API (the route has read them already):
 * v1 channels also get the v1 channel payloads.
 */
export function applyCallback(
  store: Store,
  target: { id: number; api: ChannelApi },
  batch: IngestBatch,
  presenters: Presenters,
  now = new Date(),
): IngestOutcome {
  return store.transaction(() => applyInTransaction(store, target, batch, presenters, now));
}

/**
 * applyCallback inside a group-commit unit (Store.grouped): the unit is already a savepoint of its
 * own, rolled back alone when this throws, so the savepoint applyCallback would open inside it
 * (SAVEPOINT and RELEASE on every callback) is left out.
 */
export function applyCallbackGrouped(
  store: Store,
  target: { id: number; api: ChannelApi },
  batch: IngestBatch,
  presenters: Presenters,
  now = new Date(),
): IngestOutcome {
  if (!store.db.inTransaction) throw new Error('applyCallbackGrouped runs in a group-commit unit only (Store.grouped)');
  return applyInTransaction(store, target, batch, presenters, now);
}

function applyInTransaction(
  store: Store,
  target: { id: number; api: ChannelApi },
  batch: IngestBatch,
  presenters: Presenters,
  now: Date,
): IngestOutcome {
  // Re-read inside the transaction: a channel deleted meanwhile takes nothing more. The cache
  // answers what the table holds now: every write to a channel drops its entry.
  let channel = store.channels.findLiveCached(target.id);
  if (channel === undefined) throw new NotFound(`Channel ${target.id} was not found.`);
  // New messages deduplicate themselves (their provider id is unique per channel, for good): a batch
  // of messages only claims no receipt, a write and a random index entry less per callback.
  const messagesOnly = batch.items.length > 0 && batch.items.every((item) => item.kind === 'message');
  if (
    batch.receipt !== null &&
    !messagesOnly &&
    !store.callbacks.claimReceipt(channel.id, batch.receipt, now.getTime())
  ) {
    return { duplicate: true, messages: 0, events: 0 };
  }
  const v1 = target.api === 'v1';
  let messages = 0;
  let events = 0;
  for (const item of batch.items) {
    switch (item.kind) {
      case 'message': {
        const written = storeIncoming(store, channel, item, presenters, now);
        if (written > 0) messages += 1;
        events += written;
        break;
      }
      case 'reaction':
        events += applyReaction(store, channel, item, presenters, now);
        break;
      case 'edit':
        events += applyEdit(store, channel, item, presenters, now);
        break;
      case 'deletion':
        events += applyDeletion(store, channel, item, presenters, now);
        break;
      case 'status':
        events += applyStatus(store, channel, item, presenters, now);
        break;
      case 'send_outcome':
        events += applySendOutcome(store, channel, item, presenters, now);
        break;
      case 'state': {
        const moved = applyChannelState(store, channel, item.state, item.reason, v1, now, item.account);
        channel = moved.channel;
        events += moved.events;
        break;
      }
      case 'notice':
        // A v1 `system` notice only: v2 has no event for news that leaves the auth's state as it is.
        if (v1) {
          recordSystemNotice(store, channel, item.notice, null, new Date(item.at), now);
          events += 1;
        }
        break;
      default:
        events += recordAuthSignal(store, channel, item, v1, now);
    }
  }
  // A batch of messages the channel has already (a repeated delivery) changed nothing.
  return { duplicate: messagesOnly && messages === 0, messages, events };
}

/**
 * A new message: the chat's contact (profile refreshed), its conversation (created: open,
 * unreplied), in a group the author's contact among its participants, the message (the author's)
 * with its provider media, the conversation moved (incoming: unreplied and reopened; outgoing from
 * the phone: replied) and the events — `conversation.create` for a new conversation or
 * `conversation.update` when its state, sender or participants changed, the v1
 * `group_conversation_contact.new` for a new participant, then `message.create`.
 * Answers the number of events written: 0 for a message the channel already has.
 */
function storeIncoming(
  store: Store,
  channel: ChannelRow,
  item: IncomingMessageItem,
  presenters: Presenters,
  now: Date,
): number {
  if (store.messages.findByChannelExternalId(channel.id, item.externalId) !== undefined) return 0;
  const ms = now.getTime();
  const profile = {
    name: item.chat.name,
    externalPublicId: item.chat.externalPublicId,
    phone: item.chat.phone,
    avatarUrl: item.chat.avatarUrl,
    isGroup: item.chat.isGroup,
  };
  const found = store.contacts.findOrCreate(
    {
      companyId: channel.company_id,
      channelId: channel.id,
      externalId: item.chat.externalId,
      externalPublicId: item.chat.externalPublicId,
      name: item.chat.name,
      phone: item.chat.phone,
    },
    ms,
  );
  // A new contact takes what findOrCreate does not set (avatar, group); a known one is brought up to date.
  const { contact: sender, changed: senderChanged } = store.contacts.refreshProfile(found.contact, profile, ms);
  const { conversation, created } = store.conversations.findOrCreateFor(channel, sender, ms);
  // In a group, the message is its author's and the author one of the group's participants.
  const group =
    item.sender !== undefined && sender.is_group === 1
      ? joinAuthor(store, channel, conversation, item.sender, ms)
      : undefined;

  const message = store.messages.insertOnce(
    {
      companyId: channel.company_id,
      channelId: channel.id,
      conversationId: conversation.id,
      contactId: group?.author.id ?? found.contact.id,
      externalId: item.externalId,
      repliedToId: item.repliedToId,
      income: item.income,
      status: item.income ? 'created' : 'sent',
      text: item.text,
      details: item.details,
      sendToCrm: true,
      externalCreatedAt: item.sentAt,
    },
    ms,
  );
  // Unreachable: the lookup above ran in this same BEGIN IMMEDIATE transaction, which holds the
  // write lock, so no other connection can have stored the message since. Should it happen anyway,
  // throwing rolls back the contact and conversation written above instead of committing them half.
  if (message === undefined)
    throw new Error(
      `Message ${item.externalId} of channel ${channel.id} appeared during the transaction that checked for it.`,
    );
  const attachments: AttachmentRow[] = item.attachments.map((media) =>
    store.attachments.insertFromProvider(
      {
        companyId: channel.company_id,
        messageId: message.id,
        storageKey: randomBytes(32).toString('base64url'),
        fileName: media.fileName,
        mimeType: media.mimeType,
        size: media.size,
        width: media.width,
        height: media.height,
        pushToTalk: media.pushToTalk,
        providerMedia: { kind: media.kind, ...media.providerMedia },
      },
      ms,
    ),
  );

  let updated = store.conversations.changeInTransaction(
    conversation,
    item.income
      ? {
          last_message_id: message.id,
          replied_state: 'unreplied',
          operational_state: 'open',
          unread_count: conversation.unread_count + 1,
        }
      : { last_message_id: message.id, replied_state: 'replied' },
    ms,
  );
  if (group?.joined === true) updated = { ...updated, participants: store.participants.json(conversation.id) };
  let events = 1;
  if (created) {
    recordEvent(store.outbox, channel.company_id, 'conversation', 'create', presentConversation(updated), now);
    events += 1;
  } else if (
    senderChanged ||
    group?.joined === true ||
    updated.operational_state !== conversation.operational_state ||
    updated.replied_state !== conversation.replied_state
  ) {
    recordEvent(store.outbox, channel.company_id, 'conversation', 'update', presentConversation(updated), now);
    events += 1;
  }
  if (group?.joined === true) {
    recordParticipantJoined(store, channel, updated, group.author, now);
    events += 1;
  }
  recordMessageEvent(store, 'create', message, attachments, presenters, now, updated);
  return events;
}
