import type { JSONSchema } from 'json-schema-to-ts';
import { companyId, httpUrl } from './common.js';

/** A picture's side as a client declares it: a positive integer of pixels. */
const side = { type: 'integer', minimum: 1, maximum: 1_000_000 } as const;

/**
 * POST /api/p2/attachments (the hosted service's upload page, content/ru/v2/attachments/upload-attachment.md):
 * the company in the body, and the file either as the multipart `file` part or as `file_url` (JSON,
 * a form, or a multipart text field), never both. `metadata` may say that an audio file is a voice
 * message (`push_to_talk`) and give a picture's `data: {width, height}`.
 */
export const attachmentUploadBody = {
  $id: 'v2/attachment-upload',
  type: 'object',
  required: ['company_id'],
  properties: {
    company_id: companyId,
    file_url: httpUrl,
    metadata: {
      type: 'object',
      properties: {
        push_to_talk: { type: 'boolean' },
        data: { type: 'object', properties: { width: side, height: side } },
      },
    },
  },
} as const satisfies JSONSchema;
