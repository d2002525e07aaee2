import type { JSONSchema } from 'json-schema-to-ts';

/** Provider codes of the contract (section "Naming note"). */
export const PROVIDERS = [
  'chat_a',
  'chat_a_business',
  'chat_b',
  'chat_b_personal',
  'chat_c',
  'chat_d',
  'social_a',
  'social_a_direct',
  'social_b',
  'social_c',
  'social_c_business',
  'market_a',
] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Providers connected by a bot or API token alone. */
export const TOKEN_PROVIDERS = ['social_b', 'social_a', 'social_a_direct', 'chat_b', 'chat_c'] as const;

const requiredString = { type: 'string', minLength: 1, maxLength: 4096 } as const;
/** Digits only, country code first, no plus sign: E.164 without its "+". */
const digitsPhone = {
  type: 'string',
  pattern: '^[1-9][0-9]{6,14}$',
  'x-message': 'must be digits only with the country code first (7 to 15 digits, no plus sign)',
} as const;
/** ISO 8601 timestamp or unix seconds; the one-month rule is checked after validation. */
/** The hosted service's channel option: the gateway sends the provider no read receipts for this channel. */
const doNotMarkAsRead = { type: 'boolean' } as const;

const syncMessagesFrom = {
  type: ['string', 'integer'],
  format: 'timestamp',
  'x-message': 'must be an ISO 8601 timestamp or unix seconds',
} as const;
const plusOrDigitsPhone = {
  type: 'string',
  pattern: '^\\+?[1-9][0-9]{6,14}$',
  'x-message': 'must be digits with the country code first (7 to 15 digits)',
} as const;
const viaQrCode = { type: 'boolean', const: true, 'x-message': 'must be true' } as const;
const profileData = {
  type: 'object',
  'x-message': 'must be a hash (the profile returned by the social network)',
} as const;
const hostingType = { type: 'string', enum: ['cloud', 'onpremise'] } as const;
const subtype = { type: 'string', enum: ['regular', 'unlim', 'no_write_first'] } as const;

/** First pass of POST .../channels: which provider. */
export const channelProviderBody = {
  $id: 'v1/channel-provider',
  type: 'object',
  required: ['provider'],
  properties: { provider: { type: 'string', enum: PROVIDERS } },
} as const satisfies JSONSchema;

const tokenOnly = { type: 'object', required: ['token'], properties: { token: requiredString } } as const;
const loginPassword = {
  type: 'object',
  required: ['login', 'password'],
  properties: { login: requiredString, password: requiredString },
} as const;

/**
 * Second pass of POST .../channels: the variant of the contract's "Create channel variants" table.
 * A provider with two variants (QR or code, token or channel id) is one schema whose conditional
 * part picks the variant, so errors name the missing field rather than a failed "oneOf".
 */
export const channelCreateBodies = {
  chat_d: {
    $id: 'v1/channel-create/chat_d',
    type: 'object',
    properties: { sync_messages_from: syncMessagesFrom, do_not_mark_as_read: doNotMarkAsRead },
  },
  // QR code when phone is absent, digital code when present.
  chat_a: {
    $id: 'v1/channel-create/chat_a',
    type: 'object',
    properties: { phone: digitsPhone, sync_messages_from: syncMessagesFrom, do_not_mark_as_read: doNotMarkAsRead },
  },
  // By token, or by vendor channel id when no token is given.
  chat_a_business: {
    $id: 'v1/channel-create/chat_a_business',
    type: 'object',
    required: ['hosting_type'],
    properties: {
      hosting_type: hostingType,
      token: requiredString,
      vendor_channel_id: requiredString,
      vendor_client_id: { type: 'string', maxLength: 255 },
      account_name: { type: 'string', maxLength: 255 },
      subtype,
    },
    if: { not: { required: ['token'] } },
    then: { required: ['vendor_channel_id'] },
  },
  market_a: { $id: 'v1/channel-create/market_a', ...loginPassword },
  social_b: { $id: 'v1/channel-create/social_b', ...tokenOnly },
  social_a: { $id: 'v1/channel-create/social_a', ...tokenOnly },
  social_a_direct: { $id: 'v1/channel-create/social_a_direct', ...tokenOnly },
  chat_b: { $id: 'v1/channel-create/chat_b', ...tokenOnly },
  chat_c: { $id: 'v1/channel-create/chat_c', ...tokenOnly },
  // private_api_token of the contract's table is the caller's own API token, read by authentication.
  social_c_business: {
    $id: 'v1/channel-create/social_c_business',
    type: 'object',
    required: ['token', 'phone', 'data'],
    properties: {
      token: requiredString,
      phone: { type: 'string', minLength: 1, maxLength: 64 },
      data: profileData,
    },
  },
  // By QR code (via_qr_code must be true) when phone is absent, by digital code when present.
  chat_b_personal: {
    $id: 'v1/channel-create/chat_b_personal',
    type: 'object',
    properties: {
      via_qr_code: viaQrCode,
      phone: plusOrDigitsPhone,
      sync_messages_from: syncMessagesFrom,
      do_not_mark_as_read: doNotMarkAsRead,
    },
    if: { not: { required: ['phone'] } },
    then: { required: ['via_qr_code'] },
  },
  // Not in the contract's variant table; connected by login and password, confirmed by request_code/confirm.
  social_c: { $id: 'v1/channel-create/social_c', ...loginPassword },
} as const satisfies Record<Provider, JSONSchema>;

/** PUT .../channels/<ID>: the provider's own credential parameters. */
export const channelUpdateBodies = {
  social_b: { $id: 'v1/channel-update/social_b', ...tokenOnly },
  social_a: { $id: 'v1/channel-update/social_a', ...tokenOnly },
  social_a_direct: { $id: 'v1/channel-update/social_a_direct', ...tokenOnly },
  chat_b: { $id: 'v1/channel-update/chat_b', ...tokenOnly },
  chat_c: { $id: 'v1/channel-update/chat_c', ...tokenOnly },
  social_c_business: { $id: 'v1/channel-update/social_c_business', ...tokenOnly },
  chat_a_business: {
    $id: 'v1/channel-update/chat_a_business',
    type: 'object',
    required: ['token'],
    properties: { token: requiredString },
  },
  market_a: { $id: 'v1/channel-update/market_a', ...loginPassword },
  social_c: { $id: 'v1/channel-update/social_c', ...loginPassword },
  // Session-based providers hold no credentials here; only the history window can change.
  chat_a: {
    $id: 'v1/channel-update/chat_a',
    type: 'object',
    required: ['sync_messages_from'],
    properties: { sync_messages_from: syncMessagesFrom },
  },
  chat_d: {
    $id: 'v1/channel-update/chat_d',
    type: 'object',
    required: ['sync_messages_from'],
    properties: { sync_messages_from: syncMessagesFrom },
  },
  chat_b_personal: {
    $id: 'v1/channel-update/chat_b_personal',
    type: 'object',
    required: ['sync_messages_from'],
    properties: { sync_messages_from: syncMessagesFrom },
  },
} as const satisfies Record<Provider, JSONSchema>;
