import type { Logger } from '../../log.js';
import type { StreamMessageRow, StreamMessageStore } from '../../store/pipeline/stream-messages.js';
import { KeyedRunner } from '../keyed-runner.js';
import type { DirectHandler, IncomingMessage, MessageHandler } from '../stream.js';

/** Messages of one key a consumer holds at once (running or queued behind it): a stuck key holds few. */
const KEY_HELD = 64;

/** A message of the feed in memory or handed out. */
export interface Held extends IncomingMessage {
  /** Its row in the log; 0 for a message kept in memory only. */
  seq: number;
  /** Its place in the feed, in publish order (the log's seq order, memory-only messages included). */
  order: number;
}

/**
 * A row of the log, with its value already parsed when this process just published it; `seq` 0
 * and `memoryOnly` for a recoverable message that got no row (OutgoingMessage.recoverable).
 */
export type LogRow = StreamMessageRow & { parsed?: unknown; memoryOnly?: true };

/** A row of the log in memory, its value parsed (unless the publisher's value came with it). */
export function heldOf(stream: string, row: LogRow, order: number): Held {
  return {
    stream,
    key: row.key,
    id: row.message_id,
    value: row.parsed === undefined ? JSON.parse(row.value) : row.parsed,
    notBefore: row.not_before,
    traceparent: row.traceparent ?? undefined,
    seq: row.seq,
    order,
  };
}

export interface FeedConsumerOptions {
  stream: string;
  group: string;
  handler: MessageHandler;
  direct?: DirectHandler;
  maxInFlight: number;
  messages: StreamMessageStore;
  logger: Logger;
  /** A message's handler is done (the feed can hand out more); its row's delete is on its way. */
  onSettled: (message: Held) => void;
}

/**
 * One consumer (subscription) of a feed: its keyed runner, the messages it took and has not
 * committed, and the deletes of their rows on their way.
 */
export class FeedConsumer {
  private readonly runner: KeyedRunner<Held>;
  private readonly maxInFlight: number;
  /** Messages it holds at once (running or queued behind their key). */
  private readonly maxHeld: number;
  /** Takes nothing more (stopped or draining). */
  closed = false;
  /** Taken and not committed, by order. */
  private readonly taken = new Map<number, Held>();
  /** Commits on their way (a drain waits for them: the store may close next). */
  private readonly commits = new Set<Promise<void>>();
  private readonly direct: DirectHandler | undefined;
  /** Memory-only messages in its direct handling (a drain waits for them as for running handlers). */
  private readonly directs = new Set<Promise<void>>();
  private readonly directFailed: (messageId: string, error: unknown) => void;

  constructor(options: FeedConsumerOptions) {
    const { stream, group, logger, messages } = options;
    this.maxInFlight = options.maxInFlight;
    this.direct = options.direct;
    this.directFailed = (messageId, error) =>
      logger.warn(
        { err: error, stream, group, message_id: messageId },
        'direct handling failed; the message is made again by its publisher at the next start',
      );
    this.maxHeld = Math.max(8 * options.maxInFlight, 256);
    this.runner = new KeyedRunner<Held>({
      handler: options.handler,
      maxInFlight: options.maxInFlight,
      // The key moves on without waiting for the delete to commit: it shares the transaction of
      // this turn's other appends and commits (a crash before it hands the message out again,
      // as with any uncommitted message); a failed one leaves the row for the next start.
      onDone: (message) => {
        this.taken.delete(message.order);
        options.onSettled(message);
        if (message.seq === 0) return;
        const commit = messages
          .commitGrouped(message.seq)
          .catch((error: unknown) =>
            logger.warn(
              { err: error, stream, group, message_id: message.id },
              'stream commit failed; the message is handed out again at the next start',
            ),
          )
          .finally(() => this.commits.delete(commit));
        this.commits.add(commit);
      },
      onFailed: (message, error) =>
        logger.warn({ err: error, stream, group, message_id: message.id }, 'stream handler failed; retrying'),
      onGaveUp: (message, error) =>
        logger.error(
          {
            err: error,
            stream,
            group,
            message_id: message.id,
            key: message.key,
            seq: message.seq,
            value: message.value,
          },
          'stream handler keeps failing; message given up and committed',
        ),
    });
  }

  /** Has room for one more key (a free key of the feed may go to it). */
  get takesAnotherKey(): boolean {
    return !this.closed && this.runner.keys < this.maxInFlight && this.runner.holding < this.maxHeld;
  }

  /** Still runs or queues messages of the key (its next ones must come here too). */
  holds(key: string): boolean {
    return !this.closed && this.runner.queued(key) > 0;
  }

  /** Can take one more message of a key it holds or is given. */
  hasRoomFor(key: string): boolean {
    return this.runner.holding < this.maxHeld && this.runner.queued(key) < KEY_HELD;
  }

  take(message: Held): void {
    this.taken.set(message.order, message);
    this.runner.submit(message);
  }

  /** Has a direct handling and takes messages. */
  get takesDirect(): boolean {
    return this.direct !== undefined && !this.closed;
  }

  /**
   * Offers a memory-only message to the direct handling; answers whether it took it. `settled`
   * runs once its handling ended, however it ended: a failed one leaves the message to its
   * publisher's recovery, there is no row to hand it out again from.
   */
  takeDirect(message: Held, settled: () => void): boolean {
    if (!this.takesDirect) return false;
    const handling = this.direct!(message);
    if (handling === null) return false;
    const id = message.id;
    const end = () => {
      this.directs.delete(done);
      settled();
    };
    const done = handling.then(end, (error: unknown) => {
      this.directFailed(id, error);
      end();
    });
    this.directs.add(done);
    return true;
  }

  /** Stops at once: what it took and did not commit, latest first, for the feed to put back. */
  stop(): Held[] {
    this.closed = true;
    this.runner.stop();
    return this.giveBack();
  }

  /** Finishes what it took and waits for their commits; then gives back what is left (nothing, unless stopped meanwhile). */
  async drain(): Promise<Held[]> {
    this.closed = true;
    await this.runner.drain();
    await Promise.all([...this.directs]);
    await Promise.all([...this.commits]);
    return this.giveBack();
  }

  private giveBack(): Held[] {
    const back = [...this.taken.values()].sort((a, b) => b.order - a.order);
    this.taken.clear();
    return back;
  }
}
