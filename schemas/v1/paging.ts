import type { JSONSchema } from 'json-schema-to-ts';

/** v1 list parameters (contract section 4, "v1 pagination parameters"). */
export const v1PageQuery = {
  $id: 'v1/page-query',
  type: 'object',
  properties: {
    from: { type: 'string', maxLength: 255, description: 'next_page token of the previous response' },
    per: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    sort_direction: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
  },
} as const satisfies JSONSchema;
