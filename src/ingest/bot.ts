import type { FromSchema } from 'json-schema-to-ts';
import type { botUpdate } from '../../schemas/callbacks/bot.js';
import {
  bareMimeType,
  defaultFileName,
  locationDetails,
  type ChatProfile,
  type IngestBatch,
  type IngestItem,
  type MediaDescription,
  type SenderProfile,
} from '../domain/provider-facts.js';

export type BotUpdate = FromSchema<typeof botUpdate>;
type BotMessage = NonNullable<BotUpdate['message']>;

/**
 * A bot-style update (validated) as provider-neutral items: messages, edits, reactions and deleted
 * business messages. The update id is the receipt: a
 * repeated update changes nothing (an update that carries a new message only needs none, the
 * message's id deduplicates it: src/domain/incoming.ts). Message ids are unique per chat only, so a
 * message's external id is `<chat id>:<message id>` (and so is `replied_to_id`).
 */
export function normalizeBotUpdate(update: BotUpdate): IngestBatch {
  const items: IngestItem[] = [];
  const message = update.message ?? update.channel_post;
  const edited = update.edited_message ?? update.edited_channel_post;
  if (message !== undefined) items.push(botMessageItem(message));
  if (edited !== undefined) {
    items.push({
      kind: 'edit',
      targetExternalId: botMessageId(edited.chat.id, edited.message_id),
      text: edited.text ?? edited.caption ?? null,
      editedAt: (edited.edit_date ?? edited.date) * 1000,
    });
  }
  const reaction = update.message_reaction;
  if (reaction !== undefined) {
    // One reaction per person is kept: the first emoji of the new set; none (or only custom ones) removes theirs.
    const emoji = reaction.new_reaction.find((r) => r.type === 'emoji' && r.emoji !== undefined)?.emoji ?? '';
    items.push({
      kind: 'reaction',
      receipt: `reaction:${update.update_id}`,
      targetExternalId: botMessageId(reaction.chat.id, reaction.message_id),
      from: String(reaction.user?.id ?? reaction.actor_chat?.id ?? reaction.chat.id),
      emoji,
      sentAt: reaction.date * 1000,
    });
  }
  const deleted = update.deleted_business_messages;
  if (deleted !== undefined && deleted.message_ids.length > 0) {
    items.push({
      kind: 'deletion',
      externalIds: deleted.message_ids.map((id) => botMessageId(deleted.chat.id, id)),
      at: Date.now(),
    });
  }
  return { receipt: `update:${update.update_id}`, items };
}

export function botMessageId(chatId: number, messageId: number): string {
  return `${chatId}:${messageId}`;
}

function botMessageItem(message: BotMessage): IngestItem {
  const details: Record<string, unknown> = {};
  const chat = botChat(message);
  const sender = chat.isGroup && message.from !== undefined ? botSender(message.from) : undefined;
  if (sender !== undefined) details.sender = { id: sender.externalId, name: personName(message.from!) };
  if (message.location !== undefined) details.location = locationDetails(message.location);
  return {
    kind: 'message',
    externalId: botMessageId(message.chat.id, message.message_id),
    chat,
    ...(sender === undefined ? {} : { sender }),
    income: true,
    sentAt: message.date * 1000,
    text: message.text ?? message.caption ?? null,
    repliedToId:
      message.reply_to_message === undefined
        ? null
        : botMessageId(message.chat.id, message.reply_to_message.message_id),
    attachments: botMedia(message),
    details: Object.keys(details).length === 0 ? null : details,
  };
}

function botChat(message: BotMessage): ChatProfile {
  const { chat } = message;
  const id = String(chat.id);
  if (chat.type !== 'private') {
    return {
      externalId: id,
      externalPublicId: chat.username === undefined ? id : `@${chat.username}`,
      name: chat.title ?? id,
      phone: null,
      isGroup: true,
    };
  }
  const name = personName(chat) || (chat.username ?? id);
  return {
    externalId: id,
    externalPublicId: chat.username === undefined ? id : `@${chat.username}`,
    name,
    phone: null,
    isGroup: false,
  };
}

/** The author of a group message (`from`): the same person as their private chat with the bot (its id is the user's). */
function botSender(from: NonNullable<BotMessage['from']>): SenderProfile {
  const id = String(from.id);
  return {
    externalId: id,
    externalPublicId: from.username === undefined ? id : `@${from.username}`,
    name: personName(from) || (from.username ?? id),
    phone: null,
  };
}

function personName(person: { first_name?: string; last_name?: string; username?: string }): string {
  return [person.first_name, person.last_name].filter((p) => p !== undefined && p !== '').join(' ');
}

function botMedia(message: BotMessage): MediaDescription[] {
  const ref = (file: { file_id: string; file_unique_id?: string }) => ({
    id: file.file_id,
    ...(file.file_unique_id === undefined ? {} : { unique_id: file.file_unique_id }),
  });
  const media: MediaDescription[] = [];
  if (message.photo !== undefined) {
    // Sizes come smallest first; the largest is the photo.
    const photo = [...message.photo].sort((a, b) => a.width * a.height - b.width * b.height).at(-1)!;
    media.push({
      kind: 'image',
      mimeType: 'image/jpeg',
      fileName: 'photo.jpg',
      size: photo.file_size ?? 0,
      width: photo.width,
      height: photo.height,
      pushToTalk: false,
      providerMedia: ref(photo),
    });
  }
  if (message.voice !== undefined) {
    const mimeType = bareMimeType(message.voice.mime_type, 'audio/ogg');
    media.push({
      kind: 'voice',
      mimeType,
      fileName: defaultFileName('voice', mimeType),
      size: message.voice.file_size ?? 0,
      width: null,
      height: null,
      pushToTalk: true,
      providerMedia: ref(message.voice),
    });
  }
  if (message.audio !== undefined) {
    const mimeType = bareMimeType(message.audio.mime_type, 'audio/mpeg');
    media.push({
      kind: 'audio',
      mimeType,
      fileName: message.audio.file_name ?? defaultFileName('audio', mimeType),
      size: message.audio.file_size ?? 0,
      width: null,
      height: null,
      pushToTalk: false,
      providerMedia: ref(message.audio),
    });
  }
  if (message.video !== undefined) {
    const mimeType = bareMimeType(message.video.mime_type, 'video/mp4');
    media.push({
      kind: 'video',
      mimeType,
      fileName: message.video.file_name ?? defaultFileName('video', mimeType),
      size: message.video.file_size ?? 0,
      width: message.video.width ?? null,
      height: message.video.height ?? null,
      pushToTalk: false,
      providerMedia: ref(message.video),
    });
  }
  if (message.document !== undefined) {
    const mimeType = bareMimeType(message.document.mime_type, 'application/octet-stream');
    media.push({
      kind: 'document',
      mimeType,
      fileName: message.document.file_name ?? defaultFileName('document', mimeType),
      size: message.document.file_size ?? 0,
      width: null,
      height: null,
      pushToTalk: false,
      providerMedia: ref(message.document),
    });
  }
  if (message.sticker !== undefined) {
    const mimeType = message.sticker.is_animated === true ? 'application/x-tgsticker' : 'image/webp';
    media.push({
      kind: 'sticker',
      mimeType,
      fileName: defaultFileName('sticker', mimeType),
      size: message.sticker.file_size ?? 0,
      width: message.sticker.width ?? null,
      height: message.sticker.height ?? null,
      pushToTalk: false,
      providerMedia: ref(message.sticker),
    });
  }
  return media;
}
