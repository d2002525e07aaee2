import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { pause, type Clock } from '../streams/stream.js';
import type { Worker } from '../workers/supervisor.js';

/**
 * How long a published outbox row is kept. Nothing reads it once published (a delivery keeps its
 * event for the admin API and replays); a day of them answers "what did the gateway emit" while
 * an incident is looked into, without the table growing with every event ever written.
 */
export const PUBLISHED_OUTBOX_RETENTION_MS = 86_400_000;

/**
 * Deletes published outbox rows once older than the retention, in small batches with a pause
 * between them, so that the transactions of callbacks never wait long behind it. Rows not yet
 * published stay, however old: the relay still owes them to the stream.
 */
export class OutboxJanitor implements Worker {
  readonly name = 'outbox-janitor';

  constructor(
    private readonly options: { store: Store; clock: Clock; logger: Logger; retainMs?: number; everyMs?: number; batch?: number },
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    const { store, clock, logger, retainMs = PUBLISHED_OUTBOX_RETENTION_MS, everyMs = 600_000, batch = 2_000 } = this.options;
    while (!signal.aborted) {
      const before = clock.now() - retainMs;
      let deleted = 0;
      for (let after = 0; !signal.aborted; ) {
        const pass = store.outbox.prunePublished(before, after, batch);
        if (pass.upto === null) break;
        deleted += pass.deleted;
        after = pass.upto;
        await pause(20, signal);
      }
      if (deleted > 0) logger.debug({ deleted }, 'pruned published outbox rows');
      await pause(everyMs, signal);
    }
  }
}
