import type { JSONSchema } from 'json-schema-to-ts';
import { withMessage } from '../message.js';
import { companyId } from './common.js';
import { MESSAGE_TEXT_MAX } from './messages.js';

/** POST /api/p2/conversations/<id>/messages/<message id>/reactions: the company's reaction (one per message). */
export const reactionAddBody = {
  $id: 'v2/reaction-add',
  type: 'object',
  required: ['company_id', 'emoji'],
  properties: {
    company_id: companyId,
    emoji: withMessage(
      { type: 'string', minLength: 1, maxLength: 32, pattern: '^\\S+$' },
      'must be one emoji (no spaces, at most 32 characters)',
    ),
  },
} as const satisfies JSONSchema;

/** PATCH /api/p2/conversations/<id>/messages/<message id>: the new text of a message the company sent. */
export const messageEditBody = {
  $id: 'v2/message-edit',
  type: 'object',
  required: ['company_id', 'text'],
  properties: {
    company_id: companyId,
    text: { type: 'string', minLength: 1, maxLength: MESSAGE_TEXT_MAX },
  },
} as const satisfies JSONSchema;
