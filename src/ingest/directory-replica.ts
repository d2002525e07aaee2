import { applyDirectoryEntry } from '../domain/directory.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import type { DirectoryRecord } from '../streams/kafka/kafka-directory.js';

/** Where the replica reads the directory from (src/streams/kafka/kafka-directory.ts). */
export interface DirectorySource {
  follow(apply: (records: DirectoryRecord[]) => void): Promise<{ caughtUp: Promise<void>; stop(): Promise<void> }>;
}

/**
 * Keeps this store's accounts and API tokens equal to the cluster's directory: reads the whole
 * directory topic at start, then every change as it comes, each batch in one transaction. A token
 * removed there stops authenticating here at once: every request looks its token up in the store.
 */
export async function followDirectory(
  store: Store,
  source: DirectorySource,
  logger: Logger,
): Promise<{ caughtUp: Promise<void>; stop(): Promise<void> }> {
  return source.follow((records) => {
    store.transaction(() => {
      for (const { key, value } of records)
        applyDirectoryEntry(store, key, value === null ? null : (JSON.parse(value) as unknown));
    });
    logger.debug({ entries: records.length }, 'directory entries applied');
  });
}
