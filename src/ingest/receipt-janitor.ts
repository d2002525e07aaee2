import { Janitor, type JanitorOptions } from '../workers/janitor.js';

/** Providers repeat a delivery for at most a few days (cloud-style APIs: up to 7); receipts outlive that. */
export const RECEIPT_RETENTION_MS = 14 * 86_400_000;

/**
 * Keeps callback receipts (the record that a provider delivery was applied) only as long as a
 * provider may repeat that delivery. Deletes in small batches with a pause between them, so that
 * ingest transactions never wait long behind it.
 */
export class ReceiptJanitor extends Janitor {
  constructor({
    store,
    clock,
    logger,
    retainMs = RECEIPT_RETENTION_MS,
    everyMs = 3_600_000,
    batch = 2_000,
  }: JanitorOptions) {
    super('receipt-janitor', {
      clock,
      logger,
      retainMs,
      everyMs,
      pruned: 'old callback receipts',
      pass: (before) => () => {
        const deleted = store.callbacks.pruneReceiptsBefore(before, batch);
        return { deleted, more: deleted === batch };
      },
    });
  }
}
