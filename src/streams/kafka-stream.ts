import { setMaxListeners } from 'node:events';
import { Kafka, Partitioners, logLevel, type Admin, type Consumer, type KafkaMessage as FetchedMessage, type Message, type Producer } from 'kafkajs';
import type { Logger } from '../log.js';
import { KeyedRunner } from './keyed-runner.js';
import {
  pause,
  systemClock,
  unlessAborted,
  waitUntil,
  type Clock,
  type IncomingMessage,
  type OutgoingMessage,
  type StreamBus,
  type StreamLag,
  type StreamPosition,
  type StreamSpec,
  type SubscribeOptions,
  type Subscription,
  type BatchSubscribeOptions,
} from './stream.js';

export interface KafkaStreamOptions {
  brokers: string[];
  clientId?: string;
  clock?: Clock;
  /** Prefix of every topic and consumer group, so that several installs (or test runs) share a cluster. */
  namespace?: string;
  /** Replication factor of the topics the daemon creates. Default 1 (single-broker installs). */
  replicationFactor?: number;
  /** Retries of kafkajs' own connection attempts before an operation fails. Default 8. */
  connectionRetries?: number;
  /** Least time between two offset commits of a consumer (they gather meanwhile). Default 100 ms. */
  commitIntervalMs?: number;
}

interface KafkaMessage extends IncomingMessage {
  partition: number;
  offset: number;
  generation: number;
}

/**
 * Streams as Kafka topics. Producers are idempotent and wait for all in-sync replicas (acks -1).
 * Consumers hand messages to a KeyedRunner and commit by hand: per partition, the committed
 * offset never passes a message still in a handler, so a crash redelivers, never skips.
 */
export class KafkaStreamBus implements StreamBus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly clock: Clock;
  private producer: Promise<Producer> | undefined;
  private admin: Promise<Admin> | undefined;
  private readonly outgoing: { topic: string; messages: Message[]; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private sending = false;
  private readonly consumers = new Set<Subscription>();

  constructor(
    private readonly options: KafkaStreamOptions,
    private readonly logger: Logger,
  ) {
    this.clock = options.clock ?? systemClock;
    const log = logger.child({ component: 'kafkajs' });
    this.kafka = new Kafka({
      clientId: options.clientId ?? 'gateway',
      brokers: options.brokers,
      logLevel: logLevel.WARN,
      logCreator: () => ({ level, log: entry }) => {
        const { message, ...rest } = entry;
        if (level <= logLevel.ERROR) log.error(rest, message);
        else log.warn(rest, message);
      },
      retry: { retries: options.connectionRetries ?? 8, initialRetryTime: 200, maxRetryTime: 5_000 },
    });
  }

  async ensureStreams(streams: readonly StreamSpec[]): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const missing = streams.filter((s) => !existing.has(this.topic(s.name)));
      if (missing.length > 0) {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((s) => ({ topic: this.topic(s.name), numPartitions: s.partitions, replicationFactor: this.options.replicationFactor ?? 1 })),
        });
      }
    } finally {
      await admin.disconnect();
    }
  }

  /**
   * Resolves once the broker acknowledged the messages (acks from all in-sync replicas). Publishes
   * made while a send is on its way go out together in the next one (one request for all of them,
   * in call order per topic): the idempotent producer has one request in flight at a time, so
   * without this every publish would wait a round trip behind the previous one.
   */
  publish(stream: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    const encoded = messages.map((m) => ({
      key: m.key,
      value: JSON.stringify(m.value),
      headers: { 'message-id': m.id, 'not-before': String(m.notBefore ?? this.clock.now()) },
    }));
    return new Promise<void>((resolve, reject) => {
      this.outgoing.push({ topic: this.topic(stream), messages: encoded, resolve, reject });
      if (!this.sending) void this.sendQueued();
    });
  }

  private async sendQueued(): Promise<void> {
    this.sending = true;
    try {
      while (this.outgoing.length > 0) {
        const batch = this.outgoing.splice(0);
        const byTopic = new Map<string, Message[]>();
        for (const item of batch) {
          const list = byTopic.get(item.topic) ?? [];
          list.push(...item.messages);
          byTopic.set(item.topic, list);
        }
        try {
          const producer = await this.connectedProducer();
          await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })) });
          batch.forEach((item) => item.resolve());
        } catch (error) {
          batch.forEach((item) => item.reject(error));
        }
      }
    } finally {
      this.sending = false;
    }
  }

  private topic(stream: string): string {
    return `${this.options.namespace ?? ''}${stream}`;
  }

  private connectedProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await producer.connect();
      return producer;
    })().catch((error: unknown) => {
      this.producer = undefined;
      throw error;
    });
    return this.producer;
  }

  subscribe({ stream, group, handler, maxInFlight = 32 }: SubscribeOptions): Subscription {
    const abort = new AbortController();
    setMaxListeners(0, abort.signal); // one listener per message waiting for its not_before
    let fetching = true;
    const consumer = this.groupConsumer(stream, group);
    const tracker = new OffsetTracker();
    const commits = this.commits(consumer, stream, group);
    let heartbeat: () => Promise<void> = async () => {};

    // Parked until not_before without holding a running slot; a drain or stop aborts the wait
    // and the message stays uncommitted.
    const until = (message: KafkaMessage, signal: AbortSignal) => waitUntil(this.clock, message.notBefore, signal, () => heartbeat());
    const runner = new KeyedRunner<KafkaMessage>({
      handler,
      maxInFlight,
      until,
      // Fetched before the last rebalance: the partition may have moved to another member (or been
      // re-fetched from the committed offset by this one), which runs it; running it here too
      // would only make a duplicate.
      stale: (message) => message.generation !== tracker.current,
      // The offset goes to the broker in the background, coalesced per partition (commits): a key's
      // next message does not wait for that round trip. A commit that is lost only means the
      // messages since the last one come again (at-least-once), never that one is skipped.
      onDone: (message) => {
        const offset = tracker.done(message.generation, message.partition, message.offset);
        if (offset !== null) commits.add(message.partition, offset);
      },
      onFailed: (message, error) => this.logger.warn({ err: error, stream, group, message_id: message.id }, 'stream handler failed; retrying'),
      onGaveUp: (message, error) =>
        this.logger.error(
          { err: error, stream, group, message_id: message.id, key: message.key, partition: message.partition, offset: message.offset, value: message.value },
          'stream handler keeps failing; message given up and committed',
        ),
    });
    // Messages of one partition held (running, queued behind their key or parked): past this many,
    // only that partition stops fetching until its backlog shrinks. Counted by the tracker, not by
    // walking the runner's lanes for every fetched message.
    const maxHeldPerPartition = Math.max(4 * maxInFlight, 256) + maxInFlight;
    const blocked = (partition: number) => runner.full || tracker.held(partition) >= maxHeldPerPartition;

    const { ready, markReady } = this.readyOnJoin(consumer, stream, group, () => tracker.newGeneration());

    const start = async () => {
      await consumer.connect();
      await consumer.subscribe({ topics: [this.topic(stream)], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        partitionsConsumedConcurrently: 4,
        eachMessage: async ({ partition, message, heartbeat: beat }) => {
          heartbeat = beat;
          while (fetching && !abort.signal.aborted && blocked(partition)) {
            await Promise.race([runner.changed(), pause(1_000, abort.signal)]);
            await beat().catch(() => {});
          }
          // Not resolved, so not committed: another consumer (or this one, later) gets it.
          if (abort.signal.aborted || !fetching) throw new Error('consumer stopped');
          const offset = Number(message.offset);
          const generation = tracker.started(partition, offset);
          runner.submit(incoming(stream, partition, message, generation));
        },
      });
    };
    const started = this.keepRunning(consumer, start, abort.signal, () => tracker.newGeneration(), { stream, group });

    return this.subscription({
      consumer,
      ready,
      markReady,
      abort,
      started,
      commits,
      halt: () => {
        fetching = false;
        runner.stop();
      },
      // Running handlers finish and commit; nothing new starts.
      settle: () => {
        fetching = false;
        return runner.drain();
      },
    });
  }

  /**
   * kafkajs restarts a consumer after retriable errors by itself; a start that fails (the broker
   * is down when the daemon starts) or a crash it does not restart from would leave the
   * subscription dead, so both are retried here with a growing pause until it runs or is stopped.
   * Resolves once stopped.
   */
  private keepRunning(consumer: Consumer, start: () => Promise<void>, signal: AbortSignal, restarting: () => void, context: { stream: string; group: string }): Promise<void> {
    let crashed: () => void = () => {};
    consumer.on(consumer.events.CRASH, (event) => {
      if (event.payload.restart) return;
      this.logger.error({ err: event.payload.error, ...context }, 'kafka consumer crashed; restarting it');
      crashed();
    });
    return (async () => {
      for (let failures = 0; !signal.aborted; ) {
        try {
          const crash = new Promise<void>((resolve) => (crashed = resolve));
          await start();
          failures = 0;
          await unlessAborted(crash, signal);
          if (signal.aborted) return;
        } catch (error) {
          if (signal.aborted) return;
          failures += 1;
          this.logger.error({ err: error, ...context, failures }, 'kafka consumer failed to start; trying again');
        }
        restarting();
        await consumer.disconnect().catch(() => {});
        await pause(Math.min(500 * 2 ** failures, 15_000), signal);
      }
    })();
  }

  /**
   * Hands the handler runs of consecutive messages of one partition, in offset order (so in order
   * per key), at most `maxBatch` at a time, and commits a run once the handler resolved. A handler
   * that throws gets the same run again after a growing pause; partitions go on meanwhile. For
   * consumers whose work is cheaper done for many messages at once (the core's attempt records:
   * one store unit per run instead of one per message).
   */
  subscribeBatches({ stream, group, handler, maxBatch = 128 }: BatchSubscribeOptions): Subscription {
    const abort = new AbortController();
    let fetching = true;
    let generation = 0;
    const consumer = this.groupConsumer(stream, group);
    const commits = this.commits(consumer, stream, group);
    const running = new Set<Promise<void>>();
    const { ready, markReady } = this.readyOnJoin(consumer, stream, group, () => (generation += 1));
    // Runs one chunk until the handler resolved; false when stopped (the chunk stays uncommitted).
    const handle = async (messages: KafkaMessage[], heartbeat: () => Promise<void>): Promise<boolean> => {
      const last = messages.at(-1)!;
      if (!(await waitUntil(this.clock, last.notBefore, abort.signal, heartbeat))) return false;
      for (let failures = 0; ; ) {
        if (abort.signal.aborted) return false;
        try {
          // A stop does not wait for the handler (it behaves like a crash): the run stays uncommitted.
          const handled = handler(messages);
          handled.catch(() => {}); // settles after a stop: nobody waits for it any more
          await unlessAborted(handled, abort.signal);
          return !abort.signal.aborted;
        } catch (error) {
          failures += 1;
          this.logger.warn({ err: error, stream, group, partition: last.partition, messages: messages.length }, 'stream handler failed; retrying');
          await pause(Math.min(250 * 2 ** (failures - 1), 10_000), abort.signal);
          await heartbeat().catch(() => {});
        }
      }
    };
    const start = async () => {
      await consumer.connect();
      await consumer.subscribe({ topics: [this.topic(stream)], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 4,
        eachBatch: async ({ batch, heartbeat, resolveOffset, isRunning, isStale }) => {
          const { partition } = batch;
          const mine = generation;
          const messages = batch.messages.map((message) => incoming(stream, partition, message, mine));
          for (let from = 0; from < messages.length; from += maxBatch) {
            // Not resolved, so not committed: another consumer (or this one, later) gets them.
            if (!fetching || abort.signal.aborted) throw new Error('consumer stopped');
            if (!isRunning() || isStale() || generation !== mine) return;
            const chunk = messages.slice(from, from + maxBatch);
            const task = handle(chunk, heartbeat);
            const tracked = task.then(() => undefined);
            running.add(tracked);
            const done = await task.finally(() => running.delete(tracked));
            if (!done) throw new Error('consumer stopped');
            const offset = chunk.at(-1)!.offset;
            resolveOffset(String(offset));
            // A commit after a rebalance could name a partition this member no longer owns.
            if (generation === mine) commits.add(partition, offset + 1);
            await heartbeat().catch(() => {});
          }
        },
      });
    };
    const started = this.keepRunning(consumer, start, abort.signal, () => (generation += 1), { stream, group });
    return this.subscription({
      consumer,
      ready,
      markReady,
      abort,
      started,
      commits,
      halt: () => {
        fetching = false;
      },
      // The runs in the handler finish and are committed; nothing new starts.
      settle: async () => {
        fetching = false;
        await Promise.all([...running]);
      },
    });
  }

  /**
   * A started consumer as a Subscription. stop: `halt` (nothing more is fetched or handed out),
   * then its run loop ends, pending offset commits go out and it disconnects. drain: `settle` (what
   * runs finishes and commits) first, then stop.
   */
  private subscription(parts: {
    consumer: Consumer;
    ready: Promise<void>;
    markReady: () => void;
    abort: AbortController;
    started: Promise<void>;
    commits: CommitCoalescer;
    halt: () => void;
    settle: () => Promise<void>;
  }): Subscription {
    const { consumer, ready, markReady, abort, started, commits, halt, settle } = parts;
    const stop = async () => {
      halt();
      abort.abort();
      markReady();
      await started;
      await commits.flushed();
      await consumer.disconnect().catch(() => {});
      this.consumers.delete(subscription);
    };
    const subscription: Subscription = {
      ready,
      stop,
      drain: async () => {
        await settle();
        await stop();
      },
    };
    this.consumers.add(subscription);
    return subscription;
  }

  /** One Kafka group per (group, stream): members of a Kafka group must share one subscription. */
  private groupConsumer(stream: string, group: string): Consumer {
    return this.kafka.consumer({ groupId: `${this.options.namespace ?? ''}${group}.${stream}`, sessionTimeout: 30_000, heartbeatInterval: 3_000 });
  }

  /** `ready` resolves at the consumer's first join of its group; `onJoin` runs at every join (a rebalance). */
  private readyOnJoin(consumer: Consumer, stream: string, group: string, onJoin: () => void): { ready: Promise<void>; markReady: () => void } {
    let markReady: () => void = () => {};
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      onJoin();
      const partitions = event.payload.memberAssignment[this.topic(stream)] ?? [];
      this.logger.info({ stream, group, partitions }, 'consumer joined its group');
      markReady();
    });
    return { ready, markReady };
  }

  private commits(consumer: Consumer, stream: string, group: string): CommitCoalescer {
    return new CommitCoalescer(
      (offsets) =>
        consumer
          .commitOffsets(offsets.map(({ partition, offset }) => ({ topic: this.topic(stream), partition, offset: String(offset) })))
          .catch((error: unknown) => this.logger.debug({ err: error, stream, group }, 'offset commit failed; the messages since the last one may come again')),
      this.options.commitIntervalMs ?? 100,
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
        const topic = this.topic(stream);
        const [ends, committed] = await Promise.all([
          admin.fetchTopicOffsets(topic),
          admin.fetchOffsets({ groupId: `${this.options.namespace ?? ''}${group}.${stream}`, topics: [topic] }),
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

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop()));
    const admin = await this.admin?.catch(() => undefined);
    await admin?.disconnect().catch(() => {});
    this.admin = undefined;
    const producer = await this.producer?.catch(() => undefined);
    await producer?.disconnect().catch(() => {});
    this.producer = undefined;
  }
}

/** A fetched Kafka message as the stream's consumers see it (id and not_before from its headers). */
function incoming(stream: string, partition: number, message: FetchedMessage, generation: number): KafkaMessage {
  const offset = Number(message.offset);
  return {
    stream,
    key: message.key?.toString() ?? '',
    id: message.headers?.['message-id']?.toString() ?? `${stream}/${partition}/${offset}`,
    value: JSON.parse(message.value?.toString() ?? 'null') as unknown,
    notBefore: Number(message.headers?.['not-before']?.toString() ?? 0),
    partition,
    offset,
    generation,
  };
}

/**
 * Offset commits of one consumer: while one is on its way, and for `minGapMs` after it, later ones
 * gather (the highest offset per partition wins) and go out together. Each commit is an append to
 * the broker's offsets log; back to back they were hundreds of requests a second under load. A
 * commit that is late or lost only means more messages come again after a crash (at-least-once).
 */
class CommitCoalescer {
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
 * Per partition: offsets handed out and not yet done. The committable offset is the lowest one
 * still running (or one past the highest done), so a commit never skips an unfinished message.
 * A rebalance starts a new generation; completions from an older one commit nothing.
 *
 * Offsets of a partition are handed out in increasing order, so they are kept in that order and
 * the lowest unfinished one is found by dropping finished ones from the front: constant time per
 * message on average (a scan of every running offset per completion was quadratic in a backlog).
 */
class OffsetTracker {
  private generation = 0;
  private readonly partitions = new Map<number, { order: number[]; head: number; finished: Set<number>; highestDone: number }>();

  get current(): number {
    return this.generation;
  }

  newGeneration(): void {
    this.generation += 1;
    this.partitions.clear();
  }

  started(partition: number, offset: number): number {
    let state = this.partitions.get(partition);
    if (state === undefined) this.partitions.set(partition, (state = { order: [], head: 0, finished: new Set(), highestDone: -1 }));
    state.order.push(offset);
    return this.generation;
  }

  /** Messages of the partition handed out in this generation and not done. */
  held(partition: number): number {
    const state = this.partitions.get(partition);
    return state === undefined ? 0 : state.order.length - state.head - state.finished.size;
  }

  /** The offset to commit after this completion, or null when nothing may be committed. */
  done(generation: number, partition: number, offset: number): number | null {
    const state = this.partitions.get(partition);
    if (generation !== this.generation || state === undefined) return null;
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
