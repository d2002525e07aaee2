import type { FromSchema } from 'json-schema-to-ts';
import type { cloudCallback } from '../../schemas/callbacks/cloud.js';
import {
  bareMimeType,
  defaultFileName,
  locationDetails,
  type IngestBatch,
  type IngestItem,
  type MediaDescription,
  type MediaKind,
} from '../domain/provider-facts.js';

export type CloudCallback = FromSchema<typeof cloudCallback>;
type CloudValue = CloudCallback['entry'][number]['changes'][number]['value'];
type CloudMessage = NonNullable<CloudValue['messages']>[number];
type CloudStatus = NonNullable<CloudValue['statuses']>[number];
type CloudMedia = NonNullable<CloudMessage['image']>;

const MEDIA: Record<'image' | 'audio' | 'video' | 'document' | 'sticker', string> = {
  image: 'image/jpeg',
  audio: 'audio/ogg',
  video: 'video/mp4',
  document: 'application/octet-stream',
  sticker: 'image/webp',
};

/**
 * A cloud-style business API callback (validated) as provider-neutral items: every entry and
 * every `messages` change counts; other fields (templates, account updates) are acknowledged
 * without effect. Statuses `deleted` are ignored. When the channel knows its phone-number id, a
 * change about another number is skipped: with an app secret shared by every channel, a valid
 * signature alone does not say which channel the callback is for.
 */
export function normalizeCloudCallback(callback: CloudCallback, phoneNumberId?: string): IngestBatch {
  const items: IngestItem[] = [];
  for (const entry of callback.entry) {
    for (const change of entry.changes) {
      if (change.field !== 'messages') continue;
      if (
        phoneNumberId !== undefined &&
        change.value.metadata !== undefined &&
        change.value.metadata.phone_number_id !== phoneNumberId
      )
        continue;
      const names = new Map((change.value.contacts ?? []).map((c) => [c.wa_id, c.profile?.name]));
      for (const message of change.value.messages ?? []) items.push(cloudMessageItem(message, names.get(message.from)));
      for (const status of change.value.statuses ?? []) {
        const item = cloudStatusItem(status);
        if (item !== undefined) items.push(item);
      }
    }
  }
  return { receipt: null, items };
}

function cloudMessageItem(message: CloudMessage, profileName: string | undefined): IngestItem {
  const sentAt = Number(message.timestamp) * 1000;
  if (message.type === 'reaction' && message.reaction !== undefined) {
    return {
      kind: 'reaction',
      receipt: `reaction:${message.id}`,
      targetExternalId: message.reaction.message_id,
      from: message.from,
      emoji: message.reaction.emoji ?? '',
      sentAt,
    };
  }
  let text: string | null = null;
  let details: Record<string, unknown> | null = null;
  const attachments: MediaDescription[] = [];
  switch (message.type) {
    case 'text':
      text = message.text?.body ?? null;
      break;
    case 'image':
    case 'audio':
    case 'video':
    case 'document':
    case 'sticker': {
      const media = message[message.type]!;
      text = media.caption ?? null;
      attachments.push(cloudMedia(message.type, media));
      break;
    }
    case 'location':
      details = { location: locationDetails(message.location!) };
      break;
    case 'interactive': {
      const reply = message.interactive?.button_reply ?? message.interactive?.list_reply;
      text = reply?.title ?? null;
      details = {
        interactive: {
          type: message.interactive!.type,
          ...(reply === undefined ? {} : { id: reply.id, title: reply.title }),
        },
      };
      break;
    }
    case 'button':
      text = message.button!.text;
      details = { button: { payload: message.button!.payload ?? null } };
      break;
    default:
      // Types the gateway does not read (contacts, system, unsupported) are kept as a marker.
      details = { unsupported: { type: message.type } };
  }
  return {
    kind: 'message',
    externalId: message.id,
    chat: {
      externalId: message.from,
      externalPublicId: message.from,
      name: profileName ?? message.from,
      phone: message.from,
      isGroup: false,
    },
    income: true,
    sentAt,
    text,
    repliedToId: message.context?.id ?? null,
    attachments,
    details,
  };
}

function cloudMedia(type: keyof typeof MEDIA, media: CloudMedia): MediaDescription {
  const kind: MediaKind = type === 'audio' && media.voice === true ? 'voice' : type;
  const mimeType = bareMimeType(media.mime_type, MEDIA[type]);
  const providerMedia: Record<string, unknown> = { id: media.id };
  if (media.sha256 !== undefined) providerMedia.sha256 = media.sha256;
  if (media.url !== undefined) providerMedia.url = media.url;
  return {
    kind,
    mimeType,
    fileName: media.filename ?? defaultFileName(kind, mimeType),
    size: 0,
    width: null,
    height: null,
    pushToTalk: kind === 'voice',
    providerMedia,
  };
}

function cloudStatusItem(status: CloudStatus): IngestItem | undefined {
  const at = Number(status.timestamp) * 1000;
  switch (status.status) {
    case 'sent':
    case 'delivered':
    case 'read':
      return { kind: 'status', externalId: status.id, status: status.status, at };
    case 'failed':
      return {
        kind: 'status',
        externalId: status.id,
        status: 'error',
        at,
        error: { errors: (status.errors ?? []).map(cloudError) },
      };
    default:
      return undefined;
  }
}

/** A delivery error: only the fields the gateway knows, never the provider's whole object. */
function cloudError(error: NonNullable<CloudStatus['errors']>[number]): Record<string, unknown> {
  const known: Record<string, unknown> = {};
  if (error.code !== undefined) known.code = error.code;
  if (error.title !== undefined) known.title = error.title;
  if (error.message !== undefined) known.message = error.message;
  if (error.error_data?.details !== undefined) known.error_data = { details: error.error_data.details };
  return known;
}
