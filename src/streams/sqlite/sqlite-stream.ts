import type { Logger } from '../../log.js';
import type { NewStreamMessage, StreamMessageStore } from '../../store/pipeline/stream-messages.js';
import { Feed } from './sqlite-feed.js';
import type { LogRow } from './sqlite-feed-consumer.js';
import { traceparentOf } from '../../tracing/tracer.js';
import { tracedHandler } from '../traced-handler.js';
import {
  systemClock,
  type Clock,
  type OutgoingMessage,
  type StreamBus,
  type StreamLag,
  type StreamPosition,
  type StreamSpec,
  type SubscribeOptions,
  type Subscription,
} from '../stream.js';

export interface SqliteStreamOptions {
  clock?: Clock;
  /** Real-time pause between checks for messages whose not_before came (and backlogs). Default 100 ms. */
  pollMs?: number;
}

/**
 * Streams in the SQLite store (embedded mode). The process that owns the store is the only one
 * that publishes to and consumes its streams, and each stream has one consumer group: so the
 * claims live in memory. A publish is durable once its rows committed, and its messages go
 * straight to the consumers from there; the table is read only at start, and for a backlog larger
 * than what is kept in memory. A commit deletes the message. A consumer that stops (or crashes in
 * a test) gives back what it had not committed; a process that dies hands everything uncommitted
 * out again at its next start, from the table.
 *
 * A recoverable message (OutgoingMessage.recoverable: a delivery's automatic attempt, which its
 * pending delivery row stands for) gets no row while the stream's consumer
 * keeps up: it goes to memory only, and its publisher makes it again after a restart
 * (src/store/deliveries/unsent-deliveries.ts). A row and its delete would be written only to be read by no one.
 */
export class SqliteStreamBus implements StreamBus {
  readonly kind = 'sqlite' as const;
  private readonly clock: Clock;
  private readonly pollMs: number;
  private readonly feeds = new Map<string, Feed>();

  constructor(
    private readonly messages: StreamMessageStore,
    private readonly logger: Logger,
    options: SqliteStreamOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.pollMs = options.pollMs ?? 100;
  }

  /** Streams need no creation here. */
  async ensureStreams(_streams: readonly StreamSpec[]): Promise<void> {}

  async publish(stream: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    // Publishes of the same moment share one transaction. Committed, the messages go straight to
    // the stream's consumers (if it has any in this process), in the order of the transaction.
    await this.messages.grouped(
      () => this.appendHere(stream, messages),
      (handOut) => handOut(),
    );
  }

  /**
   * Appends the messages in the store transaction open on this thread (the caller's, such as a
   * group commit's hook); answers what hands them to this process's consumers, to be called once
   * that transaction committed, before any later publish of the stream is handed out.
   */
  appendHere(stream: string, messages: readonly OutgoingMessage[]): () => void {
    const now = this.clock.now();
    // The publisher's trace context now, not when the transaction committed.
    const active = traceparentOf() ?? null;
    const feed = this.feeds.get(stream);
    if (feed === undefined) {
      this.messages.appendHere(stream, toRows(messages, now, active), now);
      return () => {};
    }
    const roomInMemory = feed.appending(messages.length);
    const memoryOnly = messages.map((m) => roomInMemory && m.recoverable === true && feed.keepsInMemory(m.key));
    const rows = toRows(
      messages.filter((_, index) => !memoryOnly[index]),
      now,
      active,
    );
    const seqs = this.messages.appendHere(stream, rows, now);
    return () => feed.published(logRows(stream, messages, memoryOnly, rows, seqs, now, active));
  }

  subscribe({ stream, group, handler, maxInFlight = 32, direct }: SubscribeOptions): Subscription {
    let feed = this.feeds.get(stream);
    if (feed === undefined)
      this.feeds.set(stream, (feed = new Feed(stream, group, this.messages, this.clock, this.pollMs, this.logger)));
    else if (feed.group !== group)
      throw new Error(`The embedded stream ${stream} is consumed by group ${feed.group}; it takes one group only.`);
    return feed.join(tracedHandler({ system: this.kind, stream, group }, handler), maxInFlight, direct);
  }

  async lag(positions: readonly StreamPosition[]): Promise<StreamLag[]> {
    const now = this.clock.now();
    return positions.map(({ stream, group }) => ({
      stream,
      group,
      messages: this.messages.lag(stream, now) + (this.feeds.get(stream)?.memoryOnlyMessages ?? 0),
    }));
  }

  async close(): Promise<void> {}
}

/**
 * The committed messages as the feed takes them, in publish order, with the values as published
 * (not parsed back): the appended rows with their seqs, and the memory-only messages among them.
 */
function logRows(
  stream: string,
  messages: readonly OutgoingMessage[],
  memoryOnly: readonly boolean[],
  rows: readonly NewStreamMessage[],
  seqs: readonly number[],
  now: number,
  active: string | null,
): LogRow[] {
  const out: LogRow[] = [];
  let appended = 0;
  for (const [index, message] of messages.entries()) {
    if (memoryOnly[index]) {
      // No text: the feed hands out `parsed`, and there is no row to read it back from.
      const { key, id, notBefore = now, traceparent = active } = message;
      out.push({
        seq: 0,
        stream,
        key,
        message_id: id,
        value: '',
        not_before: notBefore,
        traceparent,
        parsed: message.value,
        memoryOnly: true,
      });
      continue;
    }
    const row = rows[appended]!;
    out.push({
      seq: seqs[appended]!,
      stream,
      key: row.key,
      message_id: row.messageId,
      value: row.value,
      not_before: row.notBefore,
      traceparent: row.traceparent,
      parsed: message.value,
    });
    appended += 1;
  }
  return out;
}

/** The log's rows of published messages; a message without a trace context of its own takes the publisher's (`active`). */
function toRows(messages: readonly OutgoingMessage[], now: number, active: string | null): NewStreamMessage[] {
  return messages.map((m) => ({
    key: m.key,
    messageId: m.id,
    value: m.json ?? JSON.stringify(m.value),
    notBefore: m.notBefore ?? now,
    traceparent: m.traceparent ?? active,
  }));
}
