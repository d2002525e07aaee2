/**
 * What happens to a message after it was stored, as a provider reports it (a callback, or the
 * sender's outcome of the company's own reaction or edit): reactions, edits and deletions, each a
 * `message.update` in the callback's transaction. Changes to messages the channel does not have
 * are ignored.
 */
import type { Presenters } from '../presenters/presenters.js';
import type { ChannelRow } from '../store/resources/channels.js';
import type { MessageRow } from '../store/resources/messages.js';
import type { Store } from '../store/store.js';
import { recordMessageEvent } from './message-events.js';
import type { DeletionItem, EditItem, ReactionItem } from './provider-facts.js';

/** One reaction in a message's `reactions`: who (the provider's id of the person, or `company`), which emoji, when. */
export interface StoredReaction {
  emoji: string;
  from: string;
  created_at: string;
}

/** A reaction lands on the message it reacts to: one per sender, the empty emoji removes it. Answers the events written. */
export function applyReaction(
  store: Store,
  channel: ChannelRow,
  item: ReactionItem,
  presenters: Presenters,
  now: Date,
): number {
  const target = store.messages.findByChannelExternalId(channel.id, item.targetExternalId);
  if (target === undefined) return 0;
  if (!store.callbacks.claimReceipt(channel.id, item.receipt, now.getTime())) return 0;
  const others = (JSON.parse(target.reactions) as StoredReaction[]).filter((r) => r.from !== item.from);
  const reactions: StoredReaction[] =
    item.emoji === ''
      ? others
      : [...others, { emoji: item.emoji, from: item.from, created_at: new Date(item.sentAt).toISOString() }];
  return emitMessageUpdate(store, store.messages.setReactions(target.id, reactions), presenters, now);
}

/** An edit at the provider replaces the text; `details.edited_at` says when (the edited mark). Answers the events written. */
export function applyEdit(
  store: Store,
  channel: ChannelRow,
  item: EditItem,
  presenters: Presenters,
  now: Date,
): number {
  const target = store.messages.findByChannelExternalId(channel.id, item.targetExternalId);
  if (target === undefined) return 0;
  const details = { ...(parseDetails(target) ?? {}), edited_at: new Date(item.editedAt).toISOString() };
  return emitMessageUpdate(store, store.messages.setText(target.id, item.text, details), presenters, now);
}

/** Messages deleted at the provider are marked `deleted` (their text and files stay). Answers the events written. */
export function applyDeletion(
  store: Store,
  channel: ChannelRow,
  item: DeletionItem,
  presenters: Presenters,
  now: Date,
): number {
  let events = 0;
  for (const externalId of item.externalIds) {
    const target = store.messages.findByChannelExternalId(channel.id, externalId);
    const marked = target === undefined ? undefined : store.messages.markDeleted(target.id);
    if (marked !== undefined) events += emitMessageUpdate(store, marked, presenters, now);
  }
  return events;
}

/** Writes `message.update`: one event (none for a message sent with send_to_crm false). */
export function emitMessageUpdate(store: Store, message: MessageRow, presenters: Presenters, now: Date): number {
  // A message sent with send_to_crm false was never announced: its progress is not either.
  if (message.send_to_crm === 0) return 0;
  recordMessageEvent(store, 'update', message, store.attachments.forMessages([message.id]), presenters, now);
  return 1;
}

/** A message's details as an object (a bare JSON value is kept under `value`). */
export function parseDetails(message: MessageRow): Record<string, unknown> | null {
  if (message.details === null) return null;
  const details = JSON.parse(message.details) as unknown;
  return typeof details === 'object' && details !== null && !Array.isArray(details)
    ? (details as Record<string, unknown>)
    : { value: details };
}
