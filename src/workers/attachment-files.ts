import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Deletes the bytes of attachments whose rows are gone (an erased contact, expired messages),
 * named by their storage keys in the attachments folder. A file already missing is not an error:
 * provider media never downloaded has none.
 */
export async function removeAttachmentFiles(folder: string, storageKeys: readonly string[]): Promise<void> {
  for (const key of storageKeys) await fs.rm(path.join(folder, key), { force: true });
}
