import type { Admin, Consumer, Kafka } from 'kafkajs';
import type { Logger } from '../../log.js';
import { TOPIC_MAX_MESSAGE_BYTES } from './kafka-records.js';
import { ensureTopics } from './kafka-topics.js';
import { pause, type StreamLag, type StreamPosition, type StreamSpec } from '../stream.js';

/**
 * Where streams and consumer groups live in the cluster. The namespace prefixes every topic and
 * consumer group, so that several installs (or test runs) share a cluster; it is read at each call.
 */
export class KafkaNames {
  constructor(private readonly settings: { readonly namespace?: string }) {}

  topic(stream: string): string {
    return `${this.settings.namespace ?? ''}${stream}`;
  }

  /** One Kafka group per (group, stream): members of a Kafka group must share one subscription. */
  groupId(group: string, stream: string): string {
    return `${this.settings.namespace ?? ''}${group}.${stream}`;
  }
}

/**
 * Topic admin: creates the streams' topics and reads the consumer groups' committed offsets for
 * their lag. Lag reads share one admin client, connected at the first read and kept until close.
 */
export class KafkaTopicAdmin {
  private admin: Promise<Admin> | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly names: KafkaNames,
    private readonly settings: { readonly replicationFactor?: number },
  ) {}

  /**
   * Creates the topics of the streams that have none yet (`max.message.bytes` TOPIC_MAX_MESSAGE_BYTES,
   * so that one large event fits in a record), and waits for their partition leaders.
   */
  async ensureStreams(streams: readonly StreamSpec[]): Promise<void> {
    await ensureTopics(
      this.kafka,
      streams.map((s) => ({
        topic: this.names.topic(s.name),
        numPartitions: s.partitions,
        replicationFactor: this.settings.replicationFactor ?? 1,
        configEntries: [{ name: 'max.message.bytes', value: String(TOPIC_MAX_MESSAGE_BYTES) }],
      })),
    );
  }

  /** Per group: the topic's end offsets minus the group's committed offsets, summed over partitions. */
  async lag(positions: readonly StreamPosition[]): Promise<StreamLag[]> {
    this.admin ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })().catch((error: unknown) => {
      this.admin = undefined;
      throw error;
    });
    const admin = await this.admin;
    return Promise.all(
      positions.map(async ({ stream, group }) => {
        const topic = this.names.topic(stream);
        const [ends, committed] = await Promise.all([
          admin.fetchTopicOffsets(topic),
          admin.fetchOffsets({ groupId: this.names.groupId(group, stream), topics: [topic] }),
        ]);
        const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
        let messages = 0;
        for (const p of ends) {
          const at = done.get(p.partition) ?? -1;
          messages += Math.max(0, Number(p.high) - (at >= 0 ? at : Number(p.low)));
        }
        return { stream, group, messages };
      }),
    );
  }

  /** Disconnects the lag reads' admin client if one was started (one that failed to connect is skipped). */
  async close(): Promise<void> {
    const admin = await this.admin?.catch(() => undefined);
    await admin?.disconnect().catch(() => {});
    this.admin = undefined;
  }
}

/**
 * Offset commits of one consumer: while one is on its way, and for `minGapMs` after it, later ones
 * gather (the highest offset per partition wins) and go out together. Each commit is an append to
 * the broker's offsets log; sent one per completion they would be hundreds of requests a second
 * under load. A commit that is late or lost only means more messages come again after a crash
 * (at-least-once).
 */
export class CommitCoalescer {
  private readonly pending = new Map<number, number>();
  private running: Promise<void> | null = null;
  private readonly wakeEarly = new AbortController();

  constructor(
    private readonly send: (offsets: { partition: number; offset: number }[]) => Promise<unknown>,
    private readonly minGapMs: number,
  ) {}

  add(partition: number, offset: number): void {
    this.pending.set(partition, Math.max(offset, this.pending.get(partition) ?? -1));
    this.running ??= this.drain();
  }

  /**
   * Forgets the commits not sent yet: after a rebalance they name offsets of a membership that is
   * over, and a partition that moved to another member must not get them (its new owner may have
   * committed further already, and the offset would go back).
   */
  discard(): void {
    this.pending.clear();
  }

  /** Sends what is pending without waiting out the gap; resolves once every commit asked for so far was sent (or failed). */
  async flushed(): Promise<void> {
    this.wakeEarly.abort();
    while (this.running !== null) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.size > 0) {
        const offsets = [...this.pending].map(([partition, offset]) => ({ partition, offset }));
        this.pending.clear();
        await this.send(offsets);
        await pause(this.minGapMs, this.wakeEarly.signal);
      }
    } finally {
      this.running = null;
    }
  }
}

/**
 * The offset commits of a group member on a stream, coalesced, sent through its consumer of the
 * moment (`consumer`: a crashed one is replaced). A failed commit is logged at debug level and not
 * retried: the messages since the last commit may come again.
 */
export function coalescedCommits(
  consumer: () => Consumer,
  names: KafkaNames,
  stream: string,
  group: string,
  logger: Logger,
  minGapMs: number,
): CommitCoalescer {
  return new CommitCoalescer(
    (offsets) =>
      consumer()
        .commitOffsets(
          offsets.map(({ partition, offset }) => ({ topic: names.topic(stream), partition, offset: String(offset) })),
        )
        .catch((error: unknown) =>
          logger.debug(
            { err: error, stream, group },
            'offset commit failed; the messages since the last one may come again',
          ),
        ),
    minGapMs,
  );
}

/**
 * Per partition: records handed out and not yet done. A record carries one message or, packed,
 * several (kafka-records.ts); it is done once all of them are. The committable offset is the lowest
 * record still running (or one past the highest done), so a commit never skips an unfinished
 * message. A rebalance starts a new generation; completions from an older one commit nothing.
 *
 * Offsets of a partition are handed out in increasing order, so they are kept in that order and
 * the lowest unfinished one is found by dropping finished ones from the front: constant time per
 * message on average, where a scan of every running offset per completion would be quadratic in
 * a backlog.
 */
export class OffsetTracker {
  private generation = 0;
  private readonly partitions = new Map<number, PartitionOffsets>();

  get current(): number {
    return this.generation;
  }

  newGeneration(): void {
    this.generation += 1;
    this.partitions.clear();
  }

  /** A record handed out with its `messages` (each one is `done` on its own). */
  started(partition: number, offset: number, messages = 1): void {
    let state = this.partitions.get(partition);
    if (state === undefined)
      this.partitions.set(
        partition,
        (state = { order: [], head: 0, finished: new Set(), unfinished: new Map(), held: 0, highestDone: -1 }),
      );
    state.order.push(offset);
    state.held += messages;
    if (messages > 1) state.unfinished.set(offset, messages);
  }

  /** Messages of the partition handed out in this generation and not done. */
  held(partition: number): number {
    return this.partitions.get(partition)?.held ?? 0;
  }

  /** One message of the record at `offset` is done: the offset to commit now, or null when nothing new may be committed. */
  done(generation: number, partition: number, offset: number): number | null {
    const state = this.partitions.get(partition);
    if (generation !== this.generation || state === undefined) return null;
    state.held -= 1;
    const left = state.unfinished.get(offset);
    if (left !== undefined) {
      if (left > 1) {
        state.unfinished.set(offset, left - 1);
        return null;
      }
      state.unfinished.delete(offset);
    }
    state.finished.add(offset);
    state.highestDone = Math.max(state.highestDone, offset);
    while (state.head < state.order.length && state.finished.delete(state.order[state.head]!)) state.head += 1;
    if (state.head > 1024 && state.head * 2 > state.order.length) {
      state.order = state.order.slice(state.head);
      state.head = 0;
    }
    return state.head < state.order.length ? state.order[state.head]! : state.highestDone + 1;
  }
}

/** OffsetTracker's state of one partition. */
interface PartitionOffsets {
  /** Offsets of the records handed out, in order; those before `head` are done. */
  order: number[];
  head: number;
  /** Done records not yet dropped from the front of `order`. */
  finished: Set<number>;
  /** Packed records with messages still running: how many. */
  unfinished: Map<number, number>;
  /** Messages handed out and not done. */
  held: number;
  highestDone: number;
}
