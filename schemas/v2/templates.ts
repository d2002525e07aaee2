import type { JSONSchema } from 'json-schema-to-ts';
import { withMessage } from '../message.js';
import { pageParams } from './common.js';

export const TEMPLATES_MAX_PER_PAGE = 100;

/** GET /api/p2/biz_templates (company_id is not used here; company_ids narrows the account's companies). */
export const templateListQuery = {
  $id: 'v2/template-list',
  type: 'object',
  properties: {
    company_ids: { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 1000 },
    sort: withMessage(
      {
        type: 'object',
        minProperties: 1,
        maxProperties: 1,
        properties: {
          created_at: { type: 'string', enum: ['asc', 'desc'] },
          position: { type: 'string', enum: ['asc', 'desc'] },
        },
        additionalProperties: false,
      },
      'must have exactly one key, created_at or position, with the value asc or desc',
    ),
    ...pageParams(25, TEMPLATES_MAX_PER_PAGE),
  },
} as const satisfies JSONSchema;
