import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { pause, type Clock } from '../streams/stream.js';
import { removeAttachmentFiles } from './attachment-files.js';
import type { Worker } from './supervisor.js';

const DAY_MS = 86_400_000;

export interface MessageRetentionOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** GATEWAY_MESSAGE_RETENTION: the period of companies without their own; null keeps their messages. */
  defaultRetentionMs: number | null;
  /** The attachments folder of the data dir: the files of expired messages go from it. */
  folder: string;
  everyMs?: number;
  batch?: number;
}

/**
 * Every `everyMs`, deletes the messages older than their company's retention (its own
 * `message_retention_days`, else the operator's default) with their attachment rows and files, in
 * batches with a short pause between them, so that the transactions of callbacks never wait long
 * behind it; then the company's ended or held deliveries of the same age, whose bodies carry those
 * messages. The conversations stay, their last message recomputed; no event is written per
 * expired message (docs/decisions.md, "Data lifecycle").
 */
export class MessageRetention implements Worker {
  readonly name = 'message-retention';

  constructor(private readonly options: MessageRetentionOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const { logger, everyMs = 600_000 } = this.options;
    while (!signal.aborted) {
      const { messages, deliveries } = await this.pass(signal);
      if (messages + deliveries > 0) logger.info({ deleted: messages, deliveries }, 'deleted expired messages');
      await pause(everyMs, signal);
    }
  }

  /** One pass over every company with a retention; answers the messages and the deliveries deleted. */
  async pass(signal?: AbortSignal): Promise<{ messages: number; deliveries: number }> {
    const { store, clock, defaultRetentionMs, folder, batch = 500 } = this.options;
    const defaultDays = defaultRetentionMs === null ? null : defaultRetentionMs / DAY_MS;
    let [messages, deliveries] = [0, 0];
    for (const company of store.messageRetention.companiesWithRetention(defaultDays)) {
      const before = clock.now() - company.days * DAY_MS;
      for (let more = true; more && signal?.aborted !== true;) {
        const expired = store.transaction(() => store.messageRetention.deleteExpired(company.id, before, batch));
        await removeAttachmentFiles(folder, expired.storageKeys);
        messages += expired.deleted;
        more = expired.deleted === batch;
        if (more) await pause(20, signal);
      }
      for (let after: number | null = 0; after !== null && signal?.aborted !== true;) {
        const step = store.transaction(() =>
          store.messageRetention.deleteExpiredDeliveries(company.id, before, after!, batch),
        );
        deliveries += step.deleted;
        after = step.nextSeq;
        if (after !== null) await pause(20, signal);
      }
    }
    return { messages, deliveries };
  }
}
