import { EventEmitter, setMaxListeners } from 'node:events';
import type { Logger } from '../log.js';
import type { StreamCursor, StreamMessageStore } from '../store/stream-messages.js';
import { KeyedRunner } from './keyed-runner.js';
import {
  pause,
  systemClock,
  type Clock,
  type IncomingMessage,
  type OutgoingMessage,
  type StreamBus,
  type StreamLag,
  type StreamPosition,
  type StreamSpec,
  type SubscribeOptions,
  type Subscription,
} from './stream.js';

export interface SqliteStreamOptions {
  clock?: Clock;
  /** How long a claimed message stays with its consumer before it is handed out again. Default 5 min. */
  leaseMs?: number;
  /** Real-time pause between polls when nothing was due. Default 100 ms. */
  pollMs?: number;
}

/** Consecutive messages of one key claimed at once (run in order by the key's lane). */
const PER_KEY = 64;

interface ClaimedMessage extends IncomingMessage {
  seq: number;
}

/**
 * Streams in the SQLite store (embedded mode). Consumers poll; a publish in this process wakes
 * them at once. Partition counts do not apply: every key is its own ordering lane.
 */
export class SqliteStreamBus implements StreamBus {
  readonly kind = 'sqlite' as const;
  private readonly clock: Clock;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly published = new EventEmitter().setMaxListeners(0);
  /** Cursor of each subscribed (stream, group) of this process: lag() starts from it too. */
  private readonly cursors = new Map<string, StreamCursor>();

  constructor(
    private readonly messages: StreamMessageStore,
    private readonly logger: Logger,
    options: SqliteStreamOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
    this.pollMs = options.pollMs ?? 100;
  }

  /**
   * Streams need no creation here. One process owns the store, so claims still open at its start
   * were left by a process that died: they are handed out again at once, not after their lease.
   */
  async ensureStreams(_streams: readonly StreamSpec[]): Promise<void> {
    const released = this.messages.releaseClaims();
    if (released > 0) this.logger.info({ released }, 'released stream claims of a previous run');
  }

  async publish(stream: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const now = this.clock.now();
    // Publishes of the same moment share one transaction; resolved once it committed (durable).
    await this.messages.appendGrouped(
      stream,
      messages.map((m) => ({ key: m.key, messageId: m.id, value: JSON.stringify(m.value), notBefore: m.notBefore ?? now })),
      now,
    );
    this.published.emit(stream);
  }

  subscribe({ stream, group, handler, maxInFlight = 32 }: SubscribeOptions): Subscription {
    const fetching = new AbortController();
    // Poll pauses that lose a race to runner.changed() stay armed until their timer (pollMs) ends,
    // so several can listen at once; bounded by the poll interval, not a leak.
    setMaxListeners(0, fetching.signal);
    const runner = new KeyedRunner<ClaimedMessage>({
      handler,
      maxInFlight,
      onDone: async (message) => {
        await this.messages.commitGrouped(group, message.seq, this.clock.now());
        claimed.delete(message.seq);
      },
      onFailed: (message, error) => this.logger.warn({ err: error, stream, group, message_id: message.id }, 'stream handler failed; retrying'),
      onGaveUp: (message, error) =>
        this.logger.error(
          { err: error, stream, group, message_id: message.id, key: message.key, seq: message.seq, value: message.value },
          'stream handler keeps failing; message given up and committed',
        ),
      onCommitFailed: (message, error, willRetry) =>
        this.logger.warn({ err: error, stream, group, message_id: message.id, will_retry: willRetry }, 'stream commit failed'),
    });
    const cursor: StreamCursor = { floor: 0 };
    /** Seqs claimed by this subscription and not committed yet. */
    const claimed = new Set<number>();
    // Held at once (running, or queued behind their key): a claim takes up to PER_KEY consecutive
    // messages of a key, which its lane then runs in order without another claim in between.
    const maxHeld = Math.max(8 * maxInFlight, 256);
    const held = (key: string) => runner.queued(key) > 0;
    let released: Promise<void> | null = null;
    this.cursors.set(`${stream}\u0000${group}`, cursor);
    let wake: (() => void) | undefined;
    const onPublish = () => wake?.();
    this.published.on(stream, onPublish);

    const loop = (async () => {
      while (!fetching.signal.aborted) {
        // At most maxInFlight keys at once: other consumers of the group get the rest.
        while ((runner.holding >= maxHeld || runner.keys >= maxInFlight) && !fetching.signal.aborted) {
          await Promise.race([runner.changed(), pause(this.pollMs, fetching.signal)]);
        }
        if (fetching.signal.aborted) break;
        const room = maxHeld - runner.holding;
        const rows = await this.messages.claimGrouped(stream, group, room, this.clock.now(), this.leaseMs, cursor, {
          perKey: PER_KEY,
          held,
          maxKeys: maxInFlight - runner.keys,
        });
        for (const row of rows) {
          claimed.add(row.seq);
          runner.submit({ stream, key: row.key, id: row.message_id, value: JSON.parse(row.value), notBefore: row.not_before, seq: row.seq });
        }
        // A claim that found less than it could take has seen everything claimable for now.
        if (rows.length < room) {
          // Wait for a publish, for a key this subscription held to be free again (its next
          // messages may be waiting), or for the poll interval (not_before, expired leases).
          const woken = new Promise<void>((resolve) => (wake = resolve));
          released ??= runner.released().then(() => void (released = null));
          await Promise.race([pause(this.pollMs, fetching.signal), woken, released]);
          wake = undefined;
        }
      }
    })().catch((error: unknown) => this.logger.error({ err: error, stream, group }, 'sqlite stream consumer stopped'));

    const stop = async () => {
      fetching.abort();
      runner.stop();
      this.published.off(stream, onPublish);
      await loop;
    };
    return {
      ready: Promise.resolve(),
      stop,
      drain: async () => {
        fetching.abort();
        wake?.();
        await loop;
        await runner.drain();
        await stop();
        // Claimed messages left queued were abandoned: hand them out again at once, not after the lease.
        this.messages.release(group, [...claimed]);
      },
    };
  }

  async lag(positions: readonly StreamPosition[]): Promise<StreamLag[]> {
    const now = this.clock.now();
    return positions.map(({ stream, group }) => ({ stream, group, messages: this.messages.lag(stream, group, now, this.cursors.get(`${stream}\u0000${group}`)) }));
  }

  async close(): Promise<void> {}
}
