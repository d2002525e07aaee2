import type { JSONSchema } from 'json-schema-to-ts';

/** The contract's Business message template (v2). */
export const templateObject = {
  $id: 'objects/biz-template',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'name',
    'body',
    'biz_template_id',
    'substitutions_count',
    'header_content_type',
    'header',
    'namespace',
    'company_id',
    'created_at',
    'position',
  ],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    body: { type: 'string' },
    biz_template_id: { type: 'string' },
    substitutions_count: { type: 'integer', minimum: 0 },
    header_content_type: { type: ['string', 'null'] },
    header: { type: ['string', 'null'] },
    namespace: { type: ['string', 'null'] },
    company_id: { type: 'integer' },
    created_at: { type: 'string', format: 'date-time' },
    position: { type: 'integer' },
  },
} as const satisfies JSONSchema;
