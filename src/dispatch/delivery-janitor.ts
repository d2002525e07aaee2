import { WEBHOOK_RETENTION_DEFAULT_MS } from '../config/webhooks.js';
import { Janitor, scanPass, type JanitorOptions } from '../workers/janitor.js';

/**
 * Deletes delivered, failed and held deliveries, with their attempts, once their last change is
 * older than the retention (GATEWAY_WEBHOOK_RETENTION): each holds its event's whole JSON, so
 * without it the store grows with every event ever sent. Pending deliveries (not held) stay however
 * old. Small batches
 * with a pause between them, so that the transactions of callbacks never wait long behind it.
 */
export class DeliveryJanitor extends Janitor {
  constructor({
    store,
    clock,
    logger,
    retainMs = WEBHOOK_RETENTION_DEFAULT_MS,
    everyMs = 3_600_000,
    batch = 500,
  }: JanitorOptions) {
    super('delivery-janitor', {
      clock,
      logger,
      retainMs,
      everyMs,
      pruned: 'old webhook deliveries',
      pass: scanPass((before, after, limit) => store.deliveries.pruneFinished(before, after, limit), batch),
    });
  }
}
