import type { Provider } from './v1/channels.js';

/**
 * What each provider supports and what the gateway carries of it: the one table the API enforces
 * (writing first, templates, reactions, edits, deletes, read receipts, attachment kinds and sizes, how an auth connects, history
 * sync) and the catalog `GET /api/p2/providers`, the OpenAPI document and docs/providers.md show.
 */

/** How an account of the provider is connected. */
export type AuthMethod = 'qr' | 'pairing_code' | 'code' | 'token' | 'vendor_channel_id' | 'login_password' | 'oauth';

/** Which way the gateway carries a feature today: both ways, only from the provider, only to it, or not at all. */
export type Carried = 'both' | 'incoming' | 'outgoing' | 'none';

/** A feature: whether the provider's own API has it, and what of it the gateway carries. */
export interface Feature {
  provider: boolean;
  gateway: Carried;
}

/** The kinds a sent attachment goes to a provider as (from its detected type; audio with push_to_talk is voice). */
export const SEND_KINDS = ['image', 'video', 'audio', 'voice', 'document'] as const;
export type SendKind = (typeof SEND_KINDS)[number];

/** A kind of attachment the provider takes, and its size limit there (null: none known; the operator's limit applies). */
export interface AttachmentRule {
  kind: SendKind;
  maxBytes: number | null;
}

export interface ProviderCapabilities {
  authentication: readonly AuthMethod[];
  /** Message history synchronized when the auth connects (`sync_period`, `sync_messages_from`). */
  historySync: boolean;
  writingFirst: Feature;
  templates: Feature;
  groups: Feature;
  reactions: Feature;
  edits: Feature;
  deletes: Feature;
  readReceipts: Feature;
  /** What a message sent through the gateway may carry; an attachment of another kind, or larger, is a 422. */
  attachments: readonly AttachmentRule[];
}

const MB = 1024 * 1024;
const yes = <G extends Carried>(gateway: G) => ({ provider: true, gateway }) as const;
const no = { provider: false, gateway: 'none' } as const;
const each = (maxBytes: number | null, ...kinds: SendKind[]): AttachmentRule[] =>
  kinds.map((kind) => ({ kind, maxBytes }));

/**
 * The table. `provider` is what the provider's API offers; `gateway` what the gateway carries.
 * Incoming: reactions from every family (cloud-style reaction messages, bot-style
 * `message_reaction`, connector `reaction`); edits from the bot-style and connector families;
 * deletes from the connector and the bot-style `deleted_business_messages`; groups from the
 * bot-style and connector families. Outgoing: messages into groups through the bot API (`chat_b`)
 * and the connector (`chat_a`, `chat_b_personal`, `chat_d`); reactions, edits, deletes and read
 * receipts through the family's connector (cloud-style reaction messages and read marks, the bot API's
 * setMessageReaction and editMessageText, the connector protocol's calls).
 */
export const PROVIDER_CAPABILITIES = {
  chat_a: {
    authentication: ['qr', 'pairing_code'],
    historySync: true,
    writingFirst: yes('outgoing'),
    templates: no,
    groups: yes('both'),
    reactions: yes('both'),
    edits: yes('both'),
    deletes: yes('both'),
    readReceipts: yes('outgoing'),
    attachments: [...each(16 * MB, 'image', 'video', 'audio', 'voice'), ...each(100 * MB, 'document')],
  },
  chat_a_business: {
    authentication: ['token', 'vendor_channel_id', 'oauth'],
    historySync: false,
    writingFirst: yes('outgoing'),
    templates: yes('outgoing'),
    groups: no,
    reactions: yes('both'),
    edits: no,
    deletes: no,
    readReceipts: yes('outgoing'),
    attachments: [...each(5 * MB, 'image'), ...each(16 * MB, 'video', 'audio', 'voice'), ...each(100 * MB, 'document')],
  },
  chat_b: {
    authentication: ['token'],
    historySync: false,
    writingFirst: no,
    templates: no,
    groups: yes('both'),
    reactions: yes('both'),
    edits: yes('both'),
    deletes: yes('incoming'),
    readReceipts: no,
    // Sent by URL, which the bot API fetches itself: 5 MB for photos, 20 MB for other files.
    attachments: [...each(5 * MB, 'image'), ...each(20 * MB, 'video', 'audio', 'voice', 'document')],
  },
  chat_b_personal: {
    authentication: ['qr', 'code'],
    historySync: true,
    writingFirst: yes('outgoing'),
    templates: no,
    groups: yes('both'),
    reactions: yes('both'),
    edits: yes('both'),
    deletes: yes('both'),
    readReceipts: yes('outgoing'),
    attachments: each(2048 * MB, 'image', 'video', 'audio', 'voice', 'document'),
  },
  chat_c: {
    authentication: ['token'],
    historySync: false,
    writingFirst: no,
    templates: no,
    groups: no,
    reactions: no,
    edits: no,
    deletes: no,
    readReceipts: no,
    attachments: [...each(1 * MB, 'image'), ...each(26 * MB, 'video'), ...each(50 * MB, 'document')],
  },
  chat_d: {
    authentication: ['qr'],
    historySync: true,
    writingFirst: yes('outgoing'),
    templates: no,
    groups: yes('both'),
    reactions: yes('both'),
    edits: yes('both'),
    deletes: yes('both'),
    readReceipts: yes('outgoing'),
    attachments: each(null, 'image', 'video', 'audio', 'voice', 'document'),
  },
  social_a: {
    authentication: ['token', 'oauth'],
    historySync: true,
    writingFirst: no,
    templates: no,
    groups: yes('incoming'),
    reactions: yes('both'),
    edits: yes('both'),
    deletes: yes('incoming'),
    readReceipts: yes('outgoing'),
    attachments: [...each(50 * MB, 'image'), ...each(null, 'voice'), ...each(200 * MB, 'document')],
  },
  social_a_direct: {
    authentication: ['token'],
    historySync: true,
    writingFirst: yes('outgoing'),
    templates: no,
    groups: yes('incoming'),
    reactions: yes('both'),
    edits: yes('both'),
    deletes: yes('incoming'),
    readReceipts: yes('outgoing'),
    attachments: [...each(50 * MB, 'image'), ...each(null, 'video', 'voice'), ...each(200 * MB, 'document')],
  },
  social_b: {
    authentication: ['token', 'oauth'],
    historySync: false,
    writingFirst: no,
    templates: no,
    groups: no,
    reactions: yes('both'),
    edits: no,
    deletes: no,
    readReceipts: yes('outgoing'),
    attachments: each(25 * MB, 'image', 'video', 'audio', 'document'),
  },
  social_c: {
    authentication: ['login_password', 'code'],
    historySync: false,
    writingFirst: no,
    templates: no,
    groups: yes('incoming'),
    reactions: yes('both'),
    edits: no,
    deletes: yes('incoming'),
    readReceipts: yes('outgoing'),
    attachments: each(null, 'image', 'video', 'voice'),
  },
  social_c_business: {
    authentication: ['token', 'oauth'],
    historySync: true,
    writingFirst: no,
    templates: no,
    groups: no,
    reactions: yes('both'),
    edits: no,
    deletes: no,
    readReceipts: yes('outgoing'),
    attachments: [...each(8 * MB, 'image'), ...each(25 * MB, 'video', 'audio')],
  },
  market_a: {
    authentication: ['login_password', 'oauth'],
    historySync: false,
    writingFirst: no,
    templates: no,
    groups: no,
    reactions: no,
    edits: no,
    deletes: no,
    readReceipts: yes('outgoing'),
    attachments: each(null, 'image'),
  },
} as const satisfies Record<Provider, ProviderCapabilities>;

type Table = typeof PROVIDER_CAPABILITIES;

/** The providers whose entry passes `test`, in the table's order. */
function providersWhere(test: (capabilities: ProviderCapabilities) => boolean): Provider[] {
  return (Object.keys(PROVIDER_CAPABILITIES) as Provider[]).filter((p) => test(PROVIDER_CAPABILITIES[p]));
}

/** What a provider supports, by its code. */
export function capabilitiesOf(provider: Provider): ProviderCapabilities {
  return PROVIDER_CAPABILITIES[provider];
}

/** Providers the gateway writes first through (POST /api/p2/messages). */
export type WriteFirstProvider = {
  [P in Provider]: Table[P]['writingFirst']['gateway'] extends 'none' ? never : P;
}[Provider];
export const WRITE_FIRST_PROVIDERS = providersWhere((c) => c.writingFirst.gateway !== 'none') as WriteFirstProvider[];

/** Whether the gateway carries a feature to the provider. */
export function goesOut(feature: Feature): boolean {
  return feature.gateway === 'both' || feature.gateway === 'outgoing';
}

/** Providers whose messages the gateway deletes at the provider (DELETE .../messages). */
export const DELETE_PROVIDERS = providersWhere((c) => goesOut(c.deletes));

/** Providers the gateway sends reactions to (POST and DELETE .../messages/<id>/reactions). */
export const REACTION_PROVIDERS = providersWhere((c) => goesOut(c.reactions));

/** Providers whose sent messages the gateway edits (PATCH .../messages/<id>). */
export const EDIT_PROVIDERS = providersWhere((c) => goesOut(c.edits));

/** Providers the gateway sends read receipts to (POST .../conversations/<id>/read). */
export const READ_RECEIPT_PROVIDERS = providersWhere((c) => goesOut(c.readReceipts));

/** Providers whose group chats the gateway sends into (POST .../conversations/<id>/messages of a group). */
export const GROUP_SEND_PROVIDERS = providersWhere((c) => goesOut(c.groups));

/** Providers whose business templates the gateway syncs and sends. */
export const TEMPLATE_PROVIDERS = providersWhere((c) => c.templates.gateway !== 'none');

/** Providers an auth of which is connected by OAuth when it is created with `provider` alone. */
export const OAUTH_PROVIDERS = providersWhere((c) => c.authentication.includes('oauth'));

/** Providers whose account is connected by a session (a QR code or a code), so an auth starts unconfirmed. */
export const SESSION_PROVIDERS = providersWhere((c) =>
  c.authentication.some((m) => m === 'qr' || m === 'pairing_code' || m === 'code'),
);

/** Providers whose auths synchronize message history (sync_period). */
export const SYNC_PROVIDERS = providersWhere((c) => c.historySync);
