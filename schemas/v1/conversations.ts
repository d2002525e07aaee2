import type { JSONSchema } from 'json-schema-to-ts';
import { rowId } from '../v2/common.js';

/** The longest note a conversation keeps. */
export const CONVERSATION_NOTE_MAX = 10_000;

/** PUT /p1/companies/<COMPANY_ID>/conversations/<ID>/note (the hosted service's v1 conversations page). */
export const conversationNoteBody = {
  $id: 'v1/conversation-note',
  type: 'object',
  required: ['note'],
  properties: { note: { type: 'string', maxLength: CONVERSATION_NOTE_MAX } },
} as const satisfies JSONSchema;

/** PUT /p1/companies/<COMPANY_ID>/conversations/<ID>/assign: a user id, or none (absent or null) to unassign. */
export const conversationAssignBody = {
  $id: 'v1/conversation-assign',
  type: 'object',
  properties: { assignee_id: { ...rowId, type: ['integer', 'null'] } },
} as const satisfies JSONSchema;

/** The note's answer: `{status: 'updated'}`. */
export const v1NoteAnswer = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { const: 'updated' } },
} as const;

/** The assignment's answer: `{status: 'ok', data: {conversation: {external_id}}}`. */
export const v1AssignAnswer = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'data'],
  properties: {
    status: { const: 'ok' },
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['conversation'],
      properties: {
        conversation: {
          type: 'object',
          additionalProperties: false,
          required: ['external_id'],
          properties: { external_id: { type: 'integer' } },
        },
      },
    },
  },
} as const;
