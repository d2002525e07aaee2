import type { AttachmentRow } from '../store/resources/attachments.js';

/**
 * The gateway's own addresses that presented objects and send jobs carry, under its public URL
 * (GATEWAY_PUBLIC_URL). The composition root builds it once at start-up.
 */
export interface PublicUrls {
  /** Where the daemon serves an attachment's bytes: the storage key is the capability, the name is for humans. */
  attachmentFile(row: Pick<AttachmentRow, 'storage_key' | 'file_name'>): string;
}

export function publicUrls(publicUrl: string): PublicUrls {
  return {
    attachmentFile: (row) => `${publicUrl}/files/${row.storage_key}/${encodeURIComponent(row.file_name)}`,
  };
}
