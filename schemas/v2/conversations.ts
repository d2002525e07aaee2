import type { JSONSchema } from 'json-schema-to-ts';
import { companyId, pageParams, rowId } from './common.js';

export const CONVERSATIONS_MAX_PER_PAGE = 100;

/** PUT /api/p2/conversations/<id> */
export const conversationUpdateBody = {
  $id: 'v2/conversation-update',
  type: 'object',
  required: ['company_id'],
  properties: {
    company_id: companyId,
    operational_state: { type: 'string', enum: ['open', 'archived'] },
    replied_state: { type: 'string', enum: ['replied', 'unreplied'] },
    assignee_id: { ...rowId, type: ['integer', 'null'] },
  },
} as const satisfies JSONSchema;

/** GET /api/p2/conversations/<id> (and other requests that name only the company) */
export const companyQuery = {
  $id: 'v2/company-query',
  type: 'object',
  required: ['company_id'],
  properties: { company_id: companyId },
} as const satisfies JSONSchema;

/** GET /api/p2/conversations */
export const conversationListQuery = {
  $id: 'v2/conversation-list',
  type: 'object',
  required: ['company_id'],
  properties: {
    company_id: companyId,
    operational_state: { type: 'string', enum: ['open', 'archived'] },
    ...pageParams(25, CONVERSATIONS_MAX_PER_PAGE),
  },
} as const satisfies JSONSchema;
