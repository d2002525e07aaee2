import type { JSONSchema } from 'json-schema-to-ts';

const unixSeconds = { type: 'integer', minimum: 0, maximum: 99_999_999_999 } as const;

/** A media item of a connector message, as the provider described it (the gateway does not download it). */
const connectorAttachment = {
  type: 'object',
  required: ['kind', 'mime_type'],
  additionalProperties: false,
  properties: {
    kind: { type: 'string', enum: ['image', 'video', 'audio', 'voice', 'document', 'sticker'] },
    /** The provider's media id, or a URL the connector can fetch it from (at least one of them). */
    id: { type: 'string', minLength: 1, maxLength: 1024 },
    url: { type: 'string', format: 'uri', maxLength: 4096 },
    mime_type: {
      type: 'string',
      maxLength: 255,
      pattern: '^[a-z]+/[A-Za-z0-9.+-]+( *;.*)?$',
      'x-message': 'must be a media type such as image/jpeg',
    },
    file_name: { type: 'string', minLength: 1, maxLength: 255 },
    size: { type: 'integer', minimum: 0 },
    width: { type: 'integer', minimum: 1 },
    height: { type: 'integer', minimum: 1 },
  },
  anyOf: [{ required: ['id'] }, { required: ['url'] }],
} as const;

const chat = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: {
    /** The provider's stable id of the chat (a phone, a user id, a group id). */
    id: { type: 'string', minLength: 1, maxLength: 255 },
    name: { type: 'string', maxLength: 255 },
    phone: { type: 'string', pattern: '^\\+?\\d{5,20}$', 'x-message': 'must be digits with the country code' },
    /** What a human recognises: a nickname or page name; defaults to phone, then id. */
    public_id: { type: 'string', maxLength: 255 },
    avatar_url: { type: 'string', format: 'uri', maxLength: 4096 },
    group: { type: 'boolean' },
  },
} as const;

const message = {
  type: 'object',
  required: ['type', 'id', 'chat', 'timestamp'],
  additionalProperties: false,
  properties: {
    type: { const: 'message' },
    id: { type: 'string', minLength: 1, maxLength: 255 },
    chat,
    /**
     * Who wrote it inside a group chat (`chat.group: true`): the member's own id at the provider (the
     * `chat.id` of a private chat with them: a WhatsApp-Web connector's `participant`), with what is
     * known of them.
     */
    sender: {
      type: 'object',
      required: ['id'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', minLength: 1, maxLength: 255 },
        name: { type: 'string', maxLength: 255 },
        phone: { type: 'string', pattern: '^\\+?\\d{5,20}$', 'x-message': 'must be digits with the country code' },
        public_id: { type: 'string', maxLength: 255 },
        avatar_url: { type: 'string', format: 'uri', maxLength: 4096 },
      },
    },
    /** Sent from the account itself (on the phone): stored as outgoing, status `sent`. */
    from_me: { type: 'boolean', default: false },
    timestamp: unixSeconds,
    text: { type: 'string', maxLength: 65536 },
    reply_to: { type: 'string', minLength: 1, maxLength: 255 },
    attachments: { type: 'array', maxItems: 10, items: connectorAttachment },
    location: {
      type: 'object',
      required: ['latitude', 'longitude'],
      additionalProperties: false,
      properties: {
        latitude: { type: 'number' },
        longitude: { type: 'number' },
        name: { type: 'string' },
        address: { type: 'string' },
      },
    },
  },
} as const;

const status = {
  type: 'object',
  required: ['type', 'message_id', 'status', 'timestamp'],
  additionalProperties: false,
  properties: {
    type: { const: 'status' },
    message_id: { type: 'string', minLength: 1, maxLength: 255 },
    status: { type: 'string', enum: ['sent', 'delivered', 'read', 'failed'] },
    timestamp: unixSeconds,
    /** With `failed`: why. */
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code'],
      properties: { code: { type: 'string' }, title: { type: 'string' } },
    },
  },
} as const;

const state = {
  type: 'object',
  required: ['type', 'state'],
  additionalProperties: false,
  properties: {
    type: { const: 'state' },
    state: { type: 'string', enum: ['enabled', 'disabled'] },
    reason: { type: 'string', maxLength: 1024 },
    /** The connected account, when the provider tells it: its phone and user name. */
    account: {
      type: 'object',
      additionalProperties: false,
      properties: {
        phone: { type: 'string', minLength: 1, maxLength: 32 },
        username: { type: 'string', minLength: 1, maxLength: 256 },
      },
    },
  },
} as const;

const qr = {
  type: 'object',
  required: ['type', 'qr'],
  additionalProperties: false,
  properties: { type: { const: 'qr' }, qr: { type: 'string', minLength: 1, maxLength: 8192 }, expires_at: unixSeconds },
} as const;

const code = {
  type: 'object',
  required: ['type', 'code'],
  additionalProperties: false,
  properties: {
    type: { const: 'code' },
    code: { type: 'string', minLength: 1, maxLength: 64 },
    expires_at: unixSeconds,
  },
} as const;

const pages = {
  type: 'object',
  required: ['type', 'pages'],
  additionalProperties: false,
  properties: {
    type: { const: 'pages' },
    pages: {
      type: 'array',
      maxItems: 1000,
      items: {
        type: 'object',
        required: ['id', 'name'],
        additionalProperties: false,
        properties: { id: { type: 'string', minLength: 1 }, name: { type: 'string' }, username: { type: 'string' } },
      },
    },
  },
} as const;

const oauth = {
  type: 'object',
  required: ['type', 'oauth_provider_url'],
  additionalProperties: false,
  properties: { type: { const: 'oauth' }, oauth_provider_url: { type: 'string', format: 'uri', maxLength: 4096 } },
} as const;

const providerMessageId = { type: 'string', minLength: 1, maxLength: 255 } as const;

/** Someone reacted to a message of the chat (one reaction per sender; `emoji: ""` removes theirs). */
const reaction = {
  type: 'object',
  required: ['type', 'message_id', 'from', 'emoji', 'timestamp'],
  additionalProperties: false,
  properties: {
    type: { const: 'reaction' },
    message_id: providerMessageId,
    /** The reacting person's id at the provider. */
    from: { type: 'string', minLength: 1, maxLength: 255 },
    emoji: { type: 'string', maxLength: 64 },
    timestamp: unixSeconds,
  },
} as const;

/** A message's text was changed at the provider. */
const edit = {
  type: 'object',
  required: ['type', 'message_id', 'text', 'timestamp'],
  additionalProperties: false,
  properties: {
    type: { const: 'edit' },
    message_id: providerMessageId,
    text: { type: 'string', maxLength: 65_536 },
    timestamp: unixSeconds,
  },
} as const;

/** Messages were deleted for everyone at the provider. */
const deletion = {
  type: 'object',
  required: ['type', 'message_ids', 'timestamp'],
  additionalProperties: false,
  properties: {
    type: { const: 'delete' },
    message_ids: { type: 'array', minItems: 1, maxItems: 100, items: providerMessageId },
    timestamp: unixSeconds,
  },
} as const;

/** News about a live session that does not change the channel's state (the phone went offline, ...). */
export const SESSION_NOTICES = [
  'phone_offline',
  'phone_online',
  'unavailable',
  'trying_resume_work',
  'synchronized',
] as const;

const notice = {
  type: 'object',
  required: ['type', 'notice'],
  additionalProperties: false,
  properties: { type: { const: 'notice' }, notice: { type: 'string', enum: SESSION_NOTICES }, timestamp: unixSeconds },
} as const;

export const CONNECTOR_EVENT_TYPES = [
  'message',
  'status',
  'reaction',
  'edit',
  'delete',
  'state',
  'qr',
  'code',
  'pages',
  'oauth',
  'notice',
] as const;

/** First pass: which event it is (docs/connector-protocol.md). */
export const connectorEventType = {
  $id: 'callbacks/connector',
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', enum: CONNECTOR_EVENT_TYPES } },
} as const satisfies JSONSchema;

/** Second pass: the event's own schema. Unknown fields are refused: the protocol is ours. */
export const connectorEvents = {
  message: { $id: 'callbacks/connector-message', ...message },
  status: { $id: 'callbacks/connector-status', ...status },
  reaction: { $id: 'callbacks/connector-reaction', ...reaction },
  edit: { $id: 'callbacks/connector-edit', ...edit },
  delete: { $id: 'callbacks/connector-delete', ...deletion },
  state: { $id: 'callbacks/connector-state', ...state },
  qr: { $id: 'callbacks/connector-qr', ...qr },
  code: { $id: 'callbacks/connector-code', ...code },
  pages: { $id: 'callbacks/connector-pages', ...pages },
  oauth: { $id: 'callbacks/connector-oauth', ...oauth },
  notice: { $id: 'callbacks/connector-notice', ...notice },
} as const satisfies Record<(typeof CONNECTOR_EVENT_TYPES)[number], JSONSchema>;
