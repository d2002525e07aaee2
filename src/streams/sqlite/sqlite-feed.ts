import type { Logger } from '../../log.js';
import type { StreamMessageStore } from '../../store/pipeline/stream-messages.js';
import { FeedConsumer, heldOf, type Held, type LogRow } from './sqlite-feed-consumer.js';
import { DispatchTurns } from './dispatch-turns.js';
import type { Clock, DirectHandler, MessageHandler, Subscription } from '../stream.js';

/** Messages of one stream kept in memory, not yet handed to a consumer. */
const MEMORY_MESSAGES = 1_024;
/** Messages of one key kept in memory; the rest of a longer backlog is read again by key. */
const KEY_MESSAGES = 256;
/** Rows per read of the log, and reads per dispatch turn (the rest follows in the next turn). */
const PAGE_ROWS = 512;
const PAGES_PER_TURN = 8;
/**
 * A key's recoverable message is kept in memory only while fewer of its messages wait in its lane:
 * a stuck key's (a hanging endpoint's) go to the log, where a long backlog can wait outside memory.
 */
const KEY_MEMORY_ONLY = 16;

/**
 * The messages of one stream for its group: those in memory and not handed out (per key, in the
 * order published), which consumer holds each key, and how far the log has been read.
 */
export class Feed {
  /** Messages in memory not handed out, per key in the order published; keys in the order first seen. */
  private readonly lanes = new Map<string, Held[]>();
  /** Messages of the log in the lanes (the reads of the log keep it under MEMORY_MESSAGES). */
  private inMemory = 0;
  /** Memory-only messages in the lanes: no row to leave them in, so they never count against reading the log. */
  private memoryOnlyInLanes = 0;
  /** Every uncommitted message with a seq up to this one is in memory, handed out, or spilled. */
  private loadedThrough = 0;
  /** The log may hold messages past loadedThrough that are not in memory. */
  private backlog = true;
  /** Keys whose backlog did not fit in memory: the first seq of theirs left in the log. */
  private readonly spilled = new Map<string, number>();
  /** The consumer holding each key (its messages run there, in order). */
  private readonly owners = new Map<string, FeedConsumer>();
  private readonly consumers: FeedConsumer[] = [];
  private turn = 0;
  private readonly turns = new DispatchTurns(() => this.dispatchLogged());
  /** Some message in memory waits for its not_before. */
  private parked = false;
  private poll: NodeJS.Timeout | null = null;
  private nextOrder = 1;
  /** Memory-only messages not committed yet (in memory, or taken by a consumer): part of the lag. */
  private memoryOnly = 0;
  /** Messages appended to this stream in the transaction open now (reset once the turn ends). */
  private appendedThisTurn = 0;

  constructor(
    readonly stream: string,
    readonly group: string,
    private readonly messages: StreamMessageStore,
    private readonly clock: Clock,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {}

  join(handler: MessageHandler, maxInFlight: number, direct?: DirectHandler): Subscription {
    const consumer = new FeedConsumer({
      stream: this.stream,
      group: this.group,
      handler,
      direct,
      maxInFlight,
      messages: this.messages,
      logger: this.logger,
      onSettled: (message) => {
        this.schedule();
        if (message.seq === 0) this.memoryOnly -= 1;
      },
    });
    this.consumers.push(consumer);
    this.poll ??= setInterval(() => {
      if (this.backlog || this.parked || this.spilled.size > 0) this.schedule();
    }, this.pollMs).unref();
    this.schedule();
    return {
      ready: Promise.resolve(),
      stop: async () => {
        if (consumer.closed && !this.consumers.includes(consumer)) return;
        this.leave(consumer, consumer.stop());
      },
      drain: async () => this.leave(consumer, await consumer.drain()),
    };
  }

  /** Messages this process just committed to the log: straight into memory when nothing older waits in the log. */
  published(rows: readonly LogRow[]): void {
    for (const row of rows) {
      if (row.memoryOnly === true) this.acceptMemoryOnly(heldOf(this.stream, row, this.nextOrder++));
      else if (row.seq > this.loadedThrough && !this.backlog) {
        if (this.inMemory >= MEMORY_MESSAGES) this.backlog = true;
        else this.accept(row);
      }
    }
    this.schedule(true);
  }

  /**
   * Counts `count` messages appended to the stream in the transaction open now, and answers whether
   * recoverable ones among them may go without a row (kept in memory only; `keepsInMemory` then
   * decides per key): a consumer is here, nothing older waits in the log unread, and memory has
   * room for them beside everything appended before them in this transaction. Those earlier rows
   * then all fit in memory when they are handed out, so no row of a key is left in the log behind
   * a later message of the key kept in memory.
   */
  appending(count: number): boolean {
    if (count === 0) return false;
    if (this.appendedThisTurn === 0) setImmediate(() => (this.appendedThisTurn = 0));
    const fits =
      this.consumers.length > 0 &&
      !this.backlog &&
      this.inMemory + this.memoryOnlyInLanes + this.appendedThisTurn + count <= MEMORY_MESSAGES / 2;
    this.appendedThisTurn += count;
    return fits;
  }

  /** After `appending` allowed it: whether a recoverable message of `key` goes without a row (its key neither spilled nor backed up). */
  keepsInMemory(key: string): boolean {
    return !this.spilled.has(key) && (this.lanes.get(key)?.length ?? 0) < KEY_MEMORY_ONLY;
  }

  /** Uncommitted messages of the stream kept in memory only (they have no row to count). */
  get memoryOnlyMessages(): number {
    return this.memoryOnly;
  }

  /** A consumer leaves: what it took and did not commit (latest first) goes back in front of its key's lane. */
  private leave(consumer: FeedConsumer, back: readonly Held[]): void {
    const index = this.consumers.indexOf(consumer);
    if (index >= 0) this.consumers.splice(index, 1);
    for (const [key, owner] of this.owners) if (owner === consumer) this.owners.delete(key);
    for (const message of back) {
      const lane = this.lanes.get(message.key);
      if (lane === undefined) this.lanes.set(message.key, [message]);
      else lane.unshift(message);
      if (message.seq === 0) this.memoryOnlyInLanes += 1;
      else this.inMemory += 1;
    }
    if (this.consumers.length === 0 && this.poll !== null) {
      clearInterval(this.poll);
      this.poll = null;
    }
    this.schedule();
  }

  /** Dispatches once the work under way is done (`soon`: messages just committed), else in the next turn (DispatchTurns). */
  private schedule(soon = false): void {
    if (this.consumers.length === 0) return;
    if (soon) this.turns.soon();
    else this.turns.next();
  }

  private dispatchLogged(): void {
    try {
      this.dispatch();
    } catch (error) {
      // The store failing a read: the poll tries again.
      this.logger.error({ err: error, stream: this.stream, group: this.group }, 'sqlite stream dispatch failed');
    }
  }

  private accept(row: LogRow): void {
    this.loadedThrough = row.seq;
    if (this.spilled.has(row.key)) return;
    let lane = this.lanes.get(row.key);
    if (lane === undefined) this.lanes.set(row.key, (lane = []));
    else if (lane.length >= KEY_MESSAGES) {
      this.spilled.set(row.key, row.seq);
      return;
    }
    lane.push(heldOf(this.stream, row, this.nextOrder++));
    this.inMemory += 1;
  }

  /**
   * A memory-only message: to a consumer's direct handling when nothing of its key waits here or
   * runs in a consumer (so it overtakes none), else into its key's lane whatever the memory holds.
   */
  private acceptMemoryOnly(message: Held): void {
    this.memoryOnly += 1;
    const lane = this.lanes.get(message.key);
    if (
      lane === undefined &&
      !this.spilled.has(message.key) &&
      message.notBefore <= this.clock.now() &&
      this.tookDirect(message)
    )
      return;
    if (lane === undefined) this.lanes.set(message.key, [message]);
    else lane.push(message);
    this.memoryOnlyInLanes += 1;
  }

  /** Offers the message to its key's owner, or to the first consumer with a direct handling. */
  private tookDirect(message: Held): boolean {
    const owner = this.owners.get(message.key);
    if (owner?.holds(message.key)) return false;
    const consumer = owner ?? this.consumers.find((c) => c.takesDirect);
    return consumer?.takeDirect(message, () => void (this.memoryOnly -= 1)) === true;
  }

  /** Reads the log: past loadedThrough while memory has room, and the spilled keys whose lane ran short. */
  private refill(): void {
    for (let pages = 0; this.backlog && this.inMemory < MEMORY_MESSAGES / 2; pages += 1) {
      if (pages === PAGES_PER_TURN) {
        this.schedule();
        break;
      }
      const rows = this.messages.readAfter(this.stream, this.loadedThrough, PAGE_ROWS);
      for (const row of rows) this.accept(row);
      if (rows.length < PAGE_ROWS) this.backlog = false;
    }
    for (const [key, from] of this.spilled) {
      const lane = this.lanes.get(key) ?? [];
      if (lane.length >= KEY_MESSAGES / 2) continue;
      const limit = KEY_MESSAGES - lane.length;
      const rows = this.messages.readKey(this.stream, key, from, this.loadedThrough, limit);
      for (const row of rows) lane.push(heldOf(this.stream, row, this.nextOrder++));
      this.inMemory += rows.length;
      if (lane.length > 0) this.lanes.set(key, lane);
      // Fewer than asked: everything of the key up to loadedThrough is in memory now.
      if (rows.length < limit) this.spilled.delete(key);
      else this.spilled.set(key, rows.at(-1)!.seq + 1);
    }
  }

  /**
   * Hands messages to consumers: a key stays with the consumer holding it (per-key order), a free
   * key goes to a consumer with room for another key, in turn; a message not due yet holds back
   * its key. Keys already held are fed first; the lanes are walked for free keys only while some
   * consumer can take one, so a dispatch costs what it hands out, not the size of the backlog.
   */
  private dispatch(): void {
    this.refill();
    const now = this.clock.now();
    this.parked = false;
    for (const [key, owner] of this.owners) {
      if (!owner.holds(key)) {
        this.owners.delete(key);
        continue;
      }
      const lane = this.lanes.get(key);
      if (lane !== undefined) this.give(key, lane, owner, now);
    }
    for (const [key, lane] of this.lanes) {
      if (this.owners.has(key)) continue;
      if (lane[0]!.notBefore > now) {
        this.parked = true;
        continue;
      }
      const owner = this.pickConsumer();
      if (owner === undefined) break;
      this.give(key, lane, owner, now);
    }
    if (this.backlog && this.inMemory < MEMORY_MESSAGES / 2) this.schedule();
  }

  /** Moves the due head of a key's lane to the consumer, as far as it has room. */
  private give(key: string, lane: Held[], owner: FeedConsumer, now: number): void {
    let given = 0;
    while (lane.length > 0 && owner.hasRoomFor(key) && lane[0]!.notBefore <= now) {
      const message = lane.shift()!;
      if (message.seq === 0) this.memoryOnlyInLanes -= 1;
      else this.inMemory -= 1;
      owner.take(message);
      given += 1;
    }
    if (given > 0) this.owners.set(key, owner);
    if (lane.length === 0) this.lanes.delete(key);
    else if (lane[0]!.notBefore > now) this.parked = true;
  }

  /** The next consumer, in turn, with room for one more key. */
  private pickConsumer(): FeedConsumer | undefined {
    for (let i = 0; i < this.consumers.length; i += 1) {
      const consumer = this.consumers[(this.turn + i) % this.consumers.length]!;
      if (consumer.takesAnotherKey) {
        this.turn = (this.turn + i + 1) % this.consumers.length;
        return consumer;
      }
    }
    return undefined;
  }
}
