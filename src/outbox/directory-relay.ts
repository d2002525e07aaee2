import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import type { DirectoryRecord } from '../streams/kafka/kafka-directory.js';
import { pause } from '../streams/stream.js';
import type { Worker } from '../workers/supervisor.js';

/** Where the directory relay publishes: the cluster's directory topic (src/streams/kafka/kafka-directory.ts). */
export interface DirectoryPublisher {
  publish(records: readonly DirectoryRecord[]): Promise<void>;
}

/** Most changes published in one send. */
const BATCH = 256;
/** How often the relay looks for changes: they are rare (a new account, a new or revoked token). */
const POLL_MS = 100;

/**
 * Publishes the directory changes this store made (src/domain/directory.ts), oldest first, and
 * forgets each once the topic holds it. A crash between the two publishes them again: applying an
 * entry twice changes nothing.
 */
export class DirectoryRelay implements Worker {
  readonly name = 'directory-relay';

  constructor(private readonly deps: { store: Store; log: DirectoryPublisher; logger: Logger }) {}

  async run(signal: AbortSignal): Promise<void> {
    const { store, log, logger } = this.deps;
    while (!signal.aborted) {
      const rows = store.directory.pending(BATCH);
      if (rows.length === 0) {
        await pause(POLL_MS, signal);
        continue;
      }
      await log.publish(rows.map(({ key, value }) => ({ key, value })));
      store.directory.published(rows.at(-1)!.id);
      logger.debug({ changes: rows.length }, 'directory changes published');
    }
  }
}
