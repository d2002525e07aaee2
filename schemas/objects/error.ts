import type { JSONSchema } from 'json-schema-to-ts';

/** The contract's error body (section 7), used by every error answer. */
export const errorBody = {
  $id: 'objects/errors',
  type: 'object',
  additionalProperties: false,
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['status', 'code', 'title', 'detail'],
        properties: {
          status: { type: 'integer' },
          code: { type: 'string' },
          title: { type: 'string' },
          detail: { type: 'string' },
          source: { type: 'object', properties: { pointer: { type: 'string' } } },
        },
      },
    },
  },
} as const satisfies JSONSchema;
