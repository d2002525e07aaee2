import { EVENT_LOG_RETENTION_MS } from '../store/pipeline/company-event-log.js';
import { Janitor, scanPass, type JanitorOptions } from '../workers/janitor.js';

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
export class OutboxJanitor extends Janitor {
  constructor({
    store,
    clock,
    logger,
    retainMs = PUBLISHED_OUTBOX_RETENTION_MS,
    everyMs = 600_000,
    batch = 2_000,
  }: JanitorOptions) {
    super('outbox-janitor', {
      clock,
      logger,
      retainMs,
      everyMs,
      pruned: 'published outbox rows',
      pass: scanPass((before, after, limit) => store.outbox.prunePublished(before, after, limit), batch),
    });
  }
}

/**
 * Deletes the company event log's events once older than the retention (docs/api.md, "Live event
 * stream"), in small batches like the outbox janitor. A stream resuming from a deleted event gets 409.
 */
export class EventLogJanitor extends Janitor {
  constructor({
    store,
    clock,
    logger,
    retainMs = EVENT_LOG_RETENTION_MS,
    everyMs = 600_000,
    batch = 2_000,
  }: JanitorOptions) {
    super('event-log-janitor', {
      clock,
      logger,
      retainMs,
      everyMs,
      pruned: 'company event log events',
      pass: scanPass((before, after, limit) => store.eventLog.prune(before, after, limit), batch),
    });
  }
}
