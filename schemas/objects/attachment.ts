import type { JSONSchema } from 'json-schema-to-ts';

/** The contract's Attachment. preview_url is absent on audio; push_to_talk marks voice notes. */
export const attachmentObject = {
  $id: 'objects/attachment',
  type: 'object',
  required: ['id', 'message_id', 'file_name', 'mime_type', 'size', 'attachment_url', 'aspect_ratio', 'data'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    message_id: { type: ['integer', 'null'] },
    file_name: { type: 'string' },
    mime_type: { type: 'string' },
    size: { type: 'integer', minimum: 0 },
    attachment_url: { type: 'string', format: 'uri' },
    preview_url: { type: 'string', format: 'uri' },
    aspect_ratio: { type: ['number', 'null'] },
    data: {
      type: 'object',
      additionalProperties: false,
      properties: { width: { type: 'integer' }, height: { type: 'integer' } },
    },
    push_to_talk: { type: 'boolean' },
  },
} as const satisfies JSONSchema;
