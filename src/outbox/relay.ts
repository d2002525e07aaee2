import type { EventRecord } from '../streams/catalog.js';
import type { Logger } from '../log.js';
import type { InCommitRow, PendingRow, RelayRow } from '../store/pipeline/outbox-rows.js';
import type { Store } from '../store/store.js';
import type { Clock, OutgoingMessage, StreamBus } from '../streams/stream.js';
import { repeatPasses, type Worker } from '../workers/supervisor.js';
import { STREAM } from '../streams/catalog.js';
import type { SendJob } from '../domain/messaging.js';
import type { DeleteJob } from '../domain/message-deletion.js';
import type { MessageActionJob } from '../domain/message-actions.js';
import { fanOutEvent, type EndpointCache } from './fan-out.js';
import { fanOutToOperator } from './operator-fan-out.js';
import type { OperatorWebhookConfig } from '../config/config.js';
import { resolveOutboundJob } from './send-jobs.js';
import { publicUrls, type PublicUrls } from '../presenters/public-urls.js';
import { PublishSpans } from './publish-spans.js';

/** Without a public URL (tests), attachment URLs are paths. */
const NO_PUBLIC_URL = publicUrls('');

export interface OutboxRelayOptions {
  store: Store;
  bus: StreamBus;
  clock: Clock;
  logger: Logger;
  batchSize?: number;
  /** Real-time pause when the outbox is empty. */
  idleMs?: number;
  /** The addresses under GATEWAY_PUBLIC_URL: send jobs carry the URLs of their attachments. */
  urls?: PublicUrls;
  /** GATEWAY_OPERATOR_WEBHOOK_*: operational events go there too. */
  operatorWebhook?: OperatorWebhookConfig | null;
}

/**
 * Publishes outbox rows in id order, in batches, and marks them published only after the stream
 * acknowledged them: a crash before the mark publishes them again (same ids), never loses them.
 * A stream outage makes it wait and try the same batch again.
 *
 * Embedded streams live in the store, so there the publish and the mark are writes of one
 * transaction: the relay runs at the end of every group commit (OutboxStore.publishInCommits), and
 * the events of the callbacks in that transaction go out in the same commit, without a transaction
 * and a wake of their own (and without an outbox row). The loop below takes what was appended
 * outside group commits (API transactions) and what a failed publish left pending.
 */
export class OutboxRelay implements Worker {
  readonly name = 'outbox-relay';

  constructor(private readonly options: OutboxRelayOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const { store, bus, logger, idleMs = 50 } = this.options;
    const { outbox } = store;
    const stopPublishing =
      bus.appendHere === undefined
        ? () => {}
        : outbox.publishInCommits({
            batchSize: this.batchSize(),
            publish: (pending, appended) => this.relayHere(pending, appended),
            onError: (error) =>
              logger.error({ err: error }, 'outbox relay in a group commit failed; its rows wait for the next pass'),
          });
    try {
      // A failed batch (the stream away) is tried again, the same rows, after a growing pause.
      await repeatPasses(signal, async () => ((await this.relayBatch()) === 0 ? 'idle' : 'more'), {
        idleMs,
        logger,
        what: 'outbox relay publishing a batch',
        wake: (wakeUp) => outbox.whenAppended(wakeUp),
      });
    } finally {
      stopPublishing();
    }
  }

  /** Publishes one batch; answers how many rows it marked. */
  async relayBatch(): Promise<number> {
    const { store, bus, clock } = this.options;
    if (bus.appendHere !== undefined) {
      // Read inside the transaction: a hook of an earlier commit may have taken some already.
      if (!store.outbox.hasPending()) return 0;
      let count = 0;
      await store.grouped(
        () => {
          const rows = store.outbox.pendingHere(this.batchSize());
          count = rows.length;
          return this.relayHere(rows);
        },
        (handOut) => handOut?.(),
      );
      return count;
    }
    const rows = store.outbox.pendingHere(this.batchSize());
    // Consecutive rows of one stream go in one publish, keeping the id order across streams. The
    // fan-out of a run goes in one unit, not one per event; the rows are marked once the stream
    // acknowledged the messages (a crash in between publishes them again). Both go in the store's
    // group commit with the callbacks of the same turn instead of two commits of their own.
    for (const run of runsByStream(rows)) {
      const endpoints: EndpointCache = new Map();
      const spans = PublishSpans.of(bus.kind);
      try {
        await bus.publish(
          run.stream,
          await store.grouped(() => run.rows.flatMap((row) => this.toMessages(row, clock.now(), endpoints, spans))),
        );
      } catch (error) {
        spans?.end(error);
        throw error;
      }
      spans?.end();
      await store.grouped(() =>
        store.outbox.markPublishedHere(
          run.rows.map((r) => r.id),
          clock.now(),
        ),
      );
      store.outbox.published(run.rows);
    }
    return rows.length;
  }

  /**
   * Embedded streams: fans out and appends `pending` (in id order) and marks them, then `appended`
   * (messages of this transaction, not in the table), all in the transaction open now; answers
   * what hands the messages to the consumers once it committed.
   */
  private relayHere(pending: readonly PendingRow[], appended: readonly InCommitRow[] = []): (() => void) | undefined {
    const rows: readonly RelayRow[] = appended.length === 0 ? pending : [...pending, ...appended];
    if (rows.length === 0) return undefined;
    const { store, bus, clock } = this.options;
    const now = clock.now();
    const endpoints: EndpointCache = new Map();
    const spans = PublishSpans.of(bus.kind);
    let handOuts: (() => void)[];
    try {
      handOuts = runsByStream(rows).map((run) =>
        bus.appendHere!(
          run.stream,
          run.rows.flatMap((row) => this.toMessages(row, now, endpoints, spans)),
        ),
      );
      store.outbox.markPublishedHere(
        pending.map((r) => r.id),
        now,
      );
    } catch (error) {
      spans?.end(error);
      throw error;
    }
    // Written in the transaction that commits next: the publish is done as far as the relay goes.
    spans?.end();
    return () => {
      for (const handOut of handOuts) handOut();
      store.outbox.published(rows);
    };
  }

  private batchSize(): number {
    return this.options.batchSize ?? 100;
  }

  /** The messages of one row, built in its publish span when tracing is on (`spans`). */
  private toMessages(
    row: RelayRow,
    now: number,
    endpoints: EndpointCache,
    spans: PublishSpans | null,
  ): OutgoingMessage[] {
    if (spans === null) return this.messagesOf(row, now, endpoints, undefined);
    return spans.wrap(row, (traceparent) => this.messagesOf(row, now, endpoints, traceparent));
  }

  private messagesOf(
    row: RelayRow,
    now: number,
    endpoints: EndpointCache,
    traceparent: string | undefined,
  ): OutgoingMessage[] {
    const payload = row.parsed ?? (JSON.parse(row.payload) as unknown);
    if (row.stream === STREAM.events) {
      const event = payload as EventRecord;
      const messages = fanOutEvent(this.options.store, event, now, endpoints, row.payload, traceparent);
      const operator = fanOutToOperator(
        this.options.store,
        event,
        now,
        this.options.operatorWebhook ?? null,
        row.payload,
        traceparent,
      );
      return operator.length === 0 ? messages : [...messages, ...operator];
    }
    // Send jobs go out resolved: senders in worker processes have no store.
    if (row.stream === STREAM.outbound)
      return [
        {
          key: row.key,
          id: row.message_id,
          value: resolveOutboundJob(
            this.options.store,
            payload as SendJob | DeleteJob | MessageActionJob,
            this.options.urls ?? NO_PUBLIC_URL,
          ),
          traceparent,
        },
      ];
    return [{ key: row.key, id: row.message_id, value: payload, traceparent }];
  }
}

function runsByStream<Row extends RelayRow>(rows: readonly Row[]): { stream: string; rows: Row[] }[] {
  const runs: { stream: string; rows: Row[] }[] = [];
  for (const row of rows) {
    const last = runs.at(-1);
    if (last?.stream === row.stream) last.rows.push(row);
    else runs.push({ stream: row.stream, rows: [row] });
  }
  return runs;
}
