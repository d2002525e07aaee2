/**
 * What every callback family normalizes into (docs/design.md section 5): provider-neutral items that
 * src/domain/incoming.ts applies to the store in one transaction.
 */

/** A chat as the provider reports it: the contact of a conversation (a person, or a group). */
export interface ChatProfile {
  /** The provider's stable id of the chat: a phone, a user id, a group id. */
  externalId: string;
  /** What a human recognises: a phone, `@nickname`, a page name. */
  externalPublicId: string;
  name: string;
  phone: string | null;
  avatarUrl?: string;
  isGroup: boolean;
}

export type MediaKind = 'image' | 'video' | 'audio' | 'voice' | 'document' | 'sticker';

/** A media item as the provider described it; the gateway stores the description, not the bytes. */
export interface MediaDescription {
  kind: MediaKind;
  mimeType: string;
  fileName: string;
  /** 0 when the provider did not say. */
  size: number;
  width: number | null;
  height: number | null;
  pushToTalk: boolean;
  /** What the provider gave to fetch the bytes later: its media id, a URL, a checksum. */
  providerMedia: Record<string, unknown>;
}

/** Who wrote a message in a group chat: a person of the same provider (a participant of the group). */
export interface SenderProfile {
  externalId: string;
  externalPublicId: string;
  name: string;
  phone: string | null;
  avatarUrl?: string;
}

export interface IncomingMessageItem {
  kind: 'message';
  externalId: string;
  chat: ChatProfile;
  /** In a group chat, the member who wrote it (absent for the account's own messages and for channel posts). */
  sender?: SenderProfile;
  /** false for a message the account itself sent at the provider (connector `from_me`). */
  income: boolean;
  /** The provider's time of the message, unix ms. */
  sentAt: number;
  text: string | null;
  repliedToId: string | null;
  attachments: MediaDescription[];
  details: Record<string, unknown> | null;
}

export interface ReactionItem {
  kind: 'reaction';
  /** The reaction's own provider id: a repeated one changes nothing. */
  receipt: string;
  targetExternalId: string;
  from: string;
  /** The empty string removes the sender's reaction. */
  emoji: string;
  sentAt: number;
}

export interface EditItem {
  kind: 'edit';
  targetExternalId: string;
  text: string | null;
  editedAt: number;
}

/** Messages deleted for everyone at the provider. */
export interface DeletionItem {
  kind: 'deletion';
  externalIds: string[];
  at: number;
}

export type ReportedStatus = 'sent' | 'delivered' | 'read' | 'error';

export interface StatusItem {
  kind: 'status';
  externalId: string;
  status: ReportedStatus;
  at: number;
  /** With `error`: the provider's reason, kept in the message's details. */
  error?: Record<string, unknown>;
}

export interface StateItem {
  kind: 'state';
  state: 'enabled' | 'disabled';
  reason: string | null;
  /** The connected account as the provider tells it (kept for the auth's phone_number and username). */
  account?: { phone?: string; username?: string };
}

/**
 * News about a live session that leaves the channel's state as it is (the phone went offline or
 * came back, another client took the session, the session resumes, the history is synchronized):
 * the v1 `system` notice of that text (schemas/events/channel-v1.ts).
 */
export interface NoticeItem {
  kind: 'notice';
  notice: 'phone offline' | 'phone online' | 'unavailable' | 'trying_resume_work' | 'synchronized';
  at: number;
}

/**
 * Connection-flow news for the company: a QR to scan, a code to type, pages to pick (each with its
 * own OAuth address when pages are connected by OAuth), a page connected, an OAuth address.
 */
export type AuthSignalItem =
  | { kind: 'qr'; qr: string }
  | { kind: 'code'; code: string }
  | { kind: 'pages'; pages: { id: string; name: string; username?: string; oauthProviderUrl?: string }[] }
  | { kind: 'page_enabled'; pageId: string }
  | { kind: 'oauth'; oauthProviderUrl: string };

/**
 * What a sender reports about one send job (docs/design.md section 8): the provider took the message
 * (its id becomes the message's `external_id`, status `sent`) or refused it for good (`error`, the
 * reason in `details.errors`). Travels on `gateway.inbound` and is applied like any callback.
 */
export interface SendOutcomeItem {
  kind: 'send_outcome';
  /** The gateway's message id (the job's message). */
  messageId: number;
  jobId: string;
  /** The job came from the v1 write-first endpoint: its result is also a v1 job webhook. */
  v1Job: boolean;
  outcome: 'sent' | 'error';
  externalId: string | null;
  error?: { code: string; title: string };
  at: number;
}

export type IngestItem =
  | IncomingMessageItem
  | ReactionItem
  | EditItem
  | DeletionItem
  | StatusItem
  | StateItem
  | AuthSignalItem
  | SendOutcomeItem
  | NoticeItem;

export interface IngestBatch {
  /** A key of the whole delivery (an update id, a webhook id): when already applied, nothing happens. */
  receipt: string | null;
  items: IngestItem[];
}

/** A shared location: only the fields the gateway knows, never the provider's whole object. */
export function locationDetails(location: {
  latitude: number;
  longitude: number;
  name?: unknown;
  address?: unknown;
}): Record<string, unknown> {
  return {
    latitude: location.latitude,
    longitude: location.longitude,
    // Texts only: a family whose schema does not declare them (bot-style) leaves them unchecked.
    ...(typeof location.name === 'string' ? { name: location.name } : {}),
    ...(typeof location.address === 'string' ? { address: location.address } : {}),
  };
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'application/pdf': 'pdf',
};

/** A media type without parameters (`audio/ogg; codecs=opus` is `audio/ogg`), lower case. */
export function bareMimeType(mimeType: string | undefined, fallback: string): string {
  const bare = (mimeType ?? '').split(';')[0]!.trim().toLowerCase();
  return /^[a-z]+\/[a-z0-9.+-]+$/.test(bare) ? bare : fallback;
}

/** A file name for media the provider did not name: the kind and the type's usual extension (`voice.ogg`). */
export function defaultFileName(kind: MediaKind, mimeType: string): string {
  return `${kind}.${EXTENSIONS[mimeType] ?? 'bin'}`;
}

/** A normalized provider fact on `gateway.inbound`, applied by the core like a callback of the channel. */
export interface InboundFact {
  channel_id: number;
  batch: IngestBatch;
}
