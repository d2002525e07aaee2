import type { FromSchema } from 'json-schema-to-ts';
import type { attachmentObject } from '../../schemas/objects/attachment.js';
import type { AttachmentRow } from '../store/resources/attachments.js';
import type { PublicUrls } from './public-urls.js';

/** The contract's Attachment, as schemas/objects/attachment.ts describes it. */
export type AttachmentObject = FromSchema<typeof attachmentObject>;

/**
 * The contract's Attachment. `preview_url` is the same file for viewing in a browser (inline where
 * that is safe, see docs/decisions.md); audio has none, as the contract says. `push_to_talk` is on
 * every attachment, true for voice notes only.
 */
export function presentAttachment(row: AttachmentRow, urls: PublicUrls): AttachmentObject {
  const url = urls.attachmentFile(row);
  const dimensions =
    row.width !== null && row.height !== null && row.width > 0 && row.height > 0
      ? { width: row.width, height: row.height }
      : null;
  return {
    id: row.id,
    message_id: row.message_id,
    file_name: row.file_name,
    mime_type: row.mime_type,
    size: row.size,
    attachment_url: url,
    ...(row.mime_type.startsWith('audio/') ? {} : { preview_url: `${url}?disposition=inline` }),
    aspect_ratio: dimensions === null ? null : aspectRatio(dimensions.width, dimensions.height),
    data: dimensions ?? {},
    push_to_talk: row.push_to_talk === 1,
  };
}

/** width / height to 4 decimal places (16:9 is 1.7778), enough to lay out a placeholder. */
export function aspectRatio(width: number, height: number): number {
  return Math.round((width / height) * 10_000) / 10_000;
}
