import type { JSONSchema } from 'json-schema-to-ts';

/**
 * Bodies of the v1 connection steps and of write-first (contract section 4: request_code,
 * confirm, enable_page_instagram, create conversation). Form or JSON; a form sends every value as
 * text, so numbers are also accepted as digit strings.
 */

const challengeVariant = {
  type: ['string', 'integer'],
  pattern: '^[A-Za-z0-9_.-]{1,64}$',
  minimum: 0,
  'x-message': 'must be the challenge variant (a number or a word)',
} as const;
const numericCode = {
  type: ['integer', 'string'],
  pattern: '^[0-9]{1,12}$',
  minimum: 0,
  maximum: 999_999_999_999,
  'x-message': 'must be a number (the code the provider sent)',
} as const;
const confirmationVariant = {
  type: ['integer', 'string'],
  pattern: '^[0-9]{1,3}$',
  minimum: 1,
  maximum: 999,
  'x-message': 'must be an integer (the value from data.details)',
} as const;
const pageId = {
  type: ['string', 'integer'],
  pattern: '^[A-Za-z0-9_.-]{1,64}$',
  minimum: 0,
  'x-message': 'must be the id of one of the loaded pages',
} as const;
const digitsPhone = {
  type: 'string',
  pattern: '^[1-9][0-9]{6,14}$',
  'x-message': 'must be digits only with the country code first (7 to 15 digits, no plus sign)',
} as const;
const languageCode = {
  type: 'string',
  pattern: '^[a-z]{2,3}([_-][A-Za-z0-9]{2,8})?$',
  'x-message': 'must be a language code such as en or pt_BR',
} as const;

/** POST .../request_code: social_c names the challenge; the other providers send nothing. */
export const requestCodeBody = {
  $id: 'v1/request-code',
  type: 'object',
  properties: {
    challenge_variant: challengeVariant,
    challenge_type: { type: 'string', enum: ['two_factor'] },
  },
} as const satisfies JSONSchema;

/** POST .../confirm of chat_b_personal: a numeric code, or the account's password. */
export const confirmChatBPersonalBody = {
  $id: 'v1/confirm/chat_b_personal',
  type: 'object',
  required: ['confirmation_type'],
  properties: {
    confirmation_type: { type: 'string', enum: ['code', 'password'] },
    code: numericCode,
    password: { type: 'string', minLength: 1, maxLength: 256 },
  },
  allOf: [
    {
      if: { properties: { confirmation_type: { const: 'code' } }, required: ['confirmation_type'] },
      then: { required: ['code'] },
    },
    {
      if: { properties: { confirmation_type: { const: 'password' } }, required: ['confirmation_type'] },
      then: { required: ['password'] },
    },
  ],
} as const satisfies JSONSchema;

/** POST .../confirm of social_c: the confirmation code, and for two-factor the chosen variant. */
export const confirmSocialCBody = {
  $id: 'v1/confirm/social_c',
  type: 'object',
  required: ['confirmation_code'],
  properties: {
    confirmation_code: { type: 'string', minLength: 1, maxLength: 64 },
    confirmation_type: { type: 'string', enum: ['two_factor'] },
    confirmation_variant: confirmationVariant,
  },
  if: { properties: { confirmation_type: { const: 'two_factor' } }, required: ['confirmation_type'] },
  then: { required: ['confirmation_variant'] },
} as const satisfies JSONSchema;

/** GET|POST .../enable_page_instagram: one of the loaded pages and how far back to synchronize. */
export const enablePageBody = {
  $id: 'v1/enable-page',
  type: 'object',
  required: ['page_id', 'sync_period'],
  properties: {
    page_id: pageId,
    sync_period: { type: 'string', enum: ['day', 'week', 'month', 'all'] },
  },
} as const satisfies JSONSchema;

/** POST .../conversations: write first through messenger A (personal: message; business: template). */
export const v1ConversationBody = {
  $id: 'v1/conversation-create',
  type: 'object',
  required: ['phone'],
  properties: {
    phone: digitsPhone,
    message: { type: 'string', minLength: 1, maxLength: 4096 },
    /** The name the hosted service's curl example sends the message under; the same as `message`. */
    text: { type: 'string', minLength: 1, maxLength: 4096 },
    template: {
      type: 'object',
      required: ['id', 'language_code', 'parameters'],
      properties: {
        id: { type: 'string', minLength: 1, maxLength: 512 },
        language_code: languageCode,
        parameters: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 1024 } },
      },
    },
  },
} as const satisfies JSONSchema;

/** GET .../user_exists: whether the phone number has an account at the provider. */
export const userExistsQuery = {
  $id: 'v1/user-exists',
  type: 'object',
  required: ['phone'],
  properties: { phone: digitsPhone },
} as const satisfies JSONSchema;
