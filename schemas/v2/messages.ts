import type { JSONSchema } from 'json-schema-to-ts';
import { withMessage } from '../message.js';
import { attachmentIds, companyId, pageParams } from './common.js';
import { WRITE_FIRST_PROVIDERS } from '../provider-capabilities.js';

export const MESSAGES_MAX_PER_PAGE = 500;
export const MESSAGE_TEXT_MAX = 4096;

export { WRITE_FIRST_PROVIDERS, type WriteFirstProvider } from '../provider-capabilities.js';

const text = { type: 'string', maxLength: MESSAGE_TEXT_MAX } as const;
const sendToCrm = { type: 'boolean', default: true } as const;

/** GET /api/p2/conversations/<id>/messages */
export const messageListQuery = {
  $id: 'v2/message-list',
  type: 'object',
  required: ['company_id'],
  properties: { company_id: companyId, ...pageParams(150, MESSAGES_MAX_PER_PAGE) },
} as const satisfies JSONSchema;

/** POST /api/p2/conversations/<id>/messages */
export const messageSendBody = {
  $id: 'v2/message-send',
  type: 'object',
  required: ['company_id'],
  properties: {
    company_id: companyId,
    text,
    attachment_ids: attachmentIds,
    replied_to_id: { type: 'string', minLength: 1, maxLength: 255 },
    send_to_crm: sendToCrm,
  },
} as const satisfies JSONSchema;

/** POST /api/p2/messages: write first to a recipient without a conversation. */
export const writeFirstBody = {
  $id: 'v2/write-first',
  type: 'object',
  required: ['company_id', 'provider'],
  properties: {
    company_id: companyId,
    provider: { type: 'string', enum: WRITE_FIRST_PROVIDERS },
    phone: withMessage(
      { type: 'string', pattern: '^\\+?[1-9][0-9]{6,14}$' },
      'must be digits with the country code first (7 to 15 digits)',
    ),
    nickname: withMessage(
      { type: 'string', pattern: '^@?[A-Za-z0-9_]{3,64}$' },
      'must be a user name (letters, digits, _)',
    ),
    social_a_id: withMessage({ type: 'string', pattern: '^[0-9]{1,20}$' }, 'must be a numeric user id'),
    social_a_domain: withMessage(
      { type: 'string', pattern: '^[A-Za-z0-9_.]{1,64}$' },
      'must be a short name (letters, digits, _ and .)',
    ),
    text,
    attachment_ids: attachmentIds,
    biz_template_id: { type: 'string', minLength: 1, maxLength: 255 },
    substitutions: { type: 'array', items: { type: 'string', maxLength: 1024 }, maxItems: 50 },
    send_to_crm: sendToCrm,
  },
} as const satisfies JSONSchema;

/** Most messages one DELETE removes (the hosted service's delete-message page). */
export const DELETE_MESSAGES_MAX = 100;

/** DELETE /api/p2/conversations/<id>/messages */
export const messageDeleteBody = {
  $id: 'v2/message-delete',
  type: 'object',
  required: ['company_id', 'message_ids'],
  properties: {
    company_id: companyId,
    message_ids: {
      type: 'array',
      minItems: 1,
      maxItems: DELETE_MESSAGES_MAX,
      uniqueItems: true,
      items: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    },
  },
} as const satisfies JSONSchema;
