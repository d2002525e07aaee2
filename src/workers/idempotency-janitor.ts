import { Janitor, type JanitorOptions } from './janitor.js';

/** How long the first answer to an `Idempotency-Key` is answered again (docs/decisions.md, "Idempotent writes"). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;

/**
 * Deletes the stored answers of idempotency keys once they are 24 hours old, in small batches like
 * the other janitors. The API stops answering them at 24 hours whether or not they are gone yet.
 */
export class IdempotencyJanitor extends Janitor {
  constructor({
    store,
    clock,
    logger,
    retainMs = IDEMPOTENCY_RETENTION_MS,
    everyMs = 600_000,
    batch = 2_000,
  }: JanitorOptions) {
    super('idempotency-janitor', {
      clock,
      logger,
      retainMs,
      everyMs,
      pruned: 'expired idempotency keys',
      pass: (before) => () => {
        const deleted = store.idempotency.pruneBefore(before, batch);
        return { deleted, more: deleted === batch };
      },
    });
  }
}
