import type { EventRecord } from '../domain/events.js';
import type { Logger } from '../log.js';
import type { OutboxRow } from '../store/outbox.js';
import type { Store } from '../store/store.js';
import type { Clock, OutgoingMessage, StreamBus } from '../streams/stream.js';
import { repeatPasses, type Worker } from '../workers/supervisor.js';
import { STREAM } from '../dispatch/jobs.js';
import type { SendJob } from '../domain/messaging.js';
import { fanOutEvent, type EndpointCache } from './fan-out.js';
import { resolveSendJob } from './send-jobs.js';

export interface OutboxRelayOptions {
  store: Store;
  bus: StreamBus;
  clock: Clock;
  logger: Logger;
  batchSize?: number;
  /** Real-time pause when the outbox is empty. */
  idleMs?: number;
  /** GATEWAY_PUBLIC_URL: send jobs carry the URLs of their attachments. */
  publicUrl?: string;
}

/**
 * Publishes outbox rows in id order, in batches, and marks them published only after the stream
 * acknowledged them: a crash before the mark publishes them again (same ids), never loses them.
 * (Embedded streams commit the publish and the mark in one transaction.) A stream outage makes it
 * wait and try the same batch again.
 */
export class OutboxRelay implements Worker {
  readonly name = 'outbox-relay';

  constructor(private readonly options: OutboxRelayOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const { logger, idleMs = 50 } = this.options;
    // A failed batch (the stream away) is tried again, the same rows, after a growing pause.
    const { outbox } = this.options.store;
    await repeatPasses(signal, async () => ((await this.relayBatch()) === 0 ? 'idle' : 'more'), {
      idleMs,
      logger,
      what: 'outbox relay publishing a batch',
      wake: () => outbox.appended(),
    });
  }

  /** Publishes one batch; answers how many rows it marked. */
  async relayBatch(): Promise<number> {
    const { store, bus, clock, batchSize = 100 } = this.options;
    const rows = store.outbox.pending(batchSize);
    if (rows.length === 0) return 0;
    // Consecutive rows of one stream go in one publish, keeping the id order across streams.
    for (const run of runsByStream(rows)) {
      const endpoints: EndpointCache = new Map();
      const fanOut = () => run.rows.flatMap((row) => this.toMessages(row, clock.now(), endpoints));
      const ids = run.rows.map((r) => r.id);
      if (bus.publishWith !== undefined) {
        // Embedded streams live in the store: the fan-out (delivery rows), the publish and the
        // outbox mark commit in one transaction, all or nothing.
        await bus.publishWith(run.stream, () => {
          const messages = fanOut();
          store.outbox.markPublished(ids, clock.now());
          return messages;
        });
      } else {
        // The fan-out of the whole run in one unit, not one per event; the rows are marked once the
        // stream acknowledged the messages (a crash in between publishes them again). Both go in the
        // store's group commit with the callbacks of the same turn instead of two commits of their own.
        await bus.publish(run.stream, await store.grouped(fanOut));
        await store.grouped(() => store.outbox.markPublished(ids, clock.now()));
      }
    }
    return rows.length;
  }

  private toMessages(row: OutboxRow, now: number, endpoints: EndpointCache): OutgoingMessage[] {
    const payload = JSON.parse(row.payload) as unknown;
    if (row.stream === STREAM.events) return fanOutEvent(this.options.store, payload as EventRecord, now, endpoints, row.payload);
    // Send jobs go out resolved: senders in worker processes have no store.
    if (row.stream === STREAM.outbound) return [{ key: row.key, id: row.message_id, value: resolveSendJob(this.options.store, payload as SendJob, this.options.publicUrl ?? '') }];
    return [{ key: row.key, id: row.message_id, value: payload }];
  }
}

function runsByStream(rows: OutboxRow[]): { stream: string; rows: OutboxRow[] }[] {
  const runs: { stream: string; rows: OutboxRow[] }[] = [];
  for (const row of rows) {
    const last = runs.at(-1);
    if (last?.stream === row.stream) last.rows.push(row);
    else runs.push({ stream: row.stream, rows: [row] });
  }
  return runs;
}
