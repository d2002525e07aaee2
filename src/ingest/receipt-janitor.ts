import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { pause, type Clock } from '../streams/stream.js';
import type { Worker } from '../workers/supervisor.js';

/** Providers repeat a delivery for at most a few days (cloud-style APIs: up to 7); receipts outlive that. */
export const RECEIPT_RETENTION_MS = 14 * 86_400_000;

/**
 * Keeps callback receipts (the record that a provider delivery was applied) only as long as a
 * provider may repeat that delivery. Deletes in small batches with a pause between them, so that
 * ingest transactions never wait long behind it.
 */
export class ReceiptJanitor implements Worker {
  readonly name = 'receipt-janitor';

  constructor(
    private readonly options: { store: Store; clock: Clock; logger: Logger; retainMs?: number; everyMs?: number; batch?: number },
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    const { store, clock, logger, retainMs = RECEIPT_RETENTION_MS, everyMs = 3_600_000, batch = 2_000 } = this.options;
    while (!signal.aborted) {
      let deleted = 0;
      for (let n = batch; n === batch && !signal.aborted; deleted += n) {
        n = store.callbacks.pruneReceiptsBefore(clock.now() - retainMs, batch);
        if (n === batch) await pause(20, signal);
      }
      if (deleted > 0) logger.debug({ deleted }, 'pruned old callback receipts');
      await pause(everyMs, signal);
    }
  }
}
