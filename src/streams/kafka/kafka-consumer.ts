import { setMaxListeners } from 'node:events';
import type { Consumer, Kafka } from 'kafkajs';
import type { Logger } from '../../log.js';
import { KeyedRunner } from '../keyed-runner.js';
import { GroupMember, type GroupTimings } from './kafka-group-member.js';
import type { KafkaClientHealth } from './kafka-health.js';
import { coalescedCommits, OffsetTracker, type CommitCoalescer, type KafkaNames } from './kafka-offsets.js';
import { decodeRecord, type KafkaMessage } from './kafka-records.js';
import { tracedBatchHandler, tracedHandler } from '../traced-handler.js';
import {
  pause,
  unlessAborted,
  waitUntil,
  type BatchSubscribeOptions,
  type Clock,
  type SubscribeOptions,
  type Subscription,
} from '../stream.js';

/**
 * Group consumption of the stream topics: one message at a time through a KeyedRunner
 * (`subscribe`) or runs of a partition (`subscribeBatches`). Offsets are committed by hand: per
 * partition, the committed offset never passes a message still in a handler, so a crash
 * redelivers, never skips.
 */
export class KafkaConsumers {
  private readonly subscriptions = new Set<Subscription>();

  constructor(
    private readonly kafka: Kafka,
    private readonly names: KafkaNames,
    private readonly settings: GroupTimings & { readonly commitIntervalMs?: number },
    private readonly clock: Clock,
    private readonly health: KafkaClientHealth,
    private readonly logger: Logger,
  ) {}

  subscribe({ stream, group, handler, maxInFlight = 32 }: SubscribeOptions): Subscription {
    const abort = new AbortController();
    setMaxListeners(0, abort.signal); // one listener per message waiting for its not_before
    let fetching = true;
    const tracker = new OffsetTracker();
    let member: GroupMember | undefined;
    const commits = coalescedCommits(
      () => member!.current,
      this.names,
      stream,
      group,
      this.logger,
      this.settings.commitIntervalMs ?? 100,
    );
    let heartbeat: () => Promise<void> = async () => {};

    // Parked until not_before without holding a running slot; a drain or stop aborts the wait
    // and the message stays uncommitted.
    const until = (message: KafkaMessage, signal: AbortSignal) =>
      waitUntil(this.clock, message.notBefore, signal, () => heartbeat());
    const runner = new KeyedRunner<KafkaMessage>({
      handler: tracedHandler({ system: 'kafka', stream, group }, handler),
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
      onFailed: (message, error) =>
        this.logger.warn({ err: error, stream, group, message_id: message.id }, 'stream handler failed; retrying'),
      onGaveUp: (message, error) =>
        this.logger.error(
          {
            err: error,
            stream,
            group,
            message_id: message.id,
            key: message.key,
            partition: message.partition,
            offset: message.offset,
            value: message.value,
          },
          'stream handler keeps failing; message given up and committed',
        ),
    });
    // Messages of one partition held (running, queued behind their key or parked): past this many,
    // only that partition stops fetching until its backlog shrinks. Counted by the tracker, not by
    // walking the runner's lanes for every fetched message.
    const maxHeldPerPartition = Math.max(4 * maxInFlight, 256) + maxInFlight;
    const blocked = (partition: number) => runner.full || tracker.held(partition) >= maxHeldPerPartition;

    const run = async (consumer: Consumer) => {
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
          const messages = decodeRecord(stream, partition, message, tracker.current);
          tracker.started(partition, Number(message.offset), messages.length);
          for (const each of messages) runner.submit(each);
        },
      });
    };
    member = this.member(stream, group, abort.signal, run, () => {
      tracker.newGeneration();
      commits.discard();
    });

    return this.subscription({
      member,
      abort,
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
   * Hands the handler runs of consecutive messages of one partition, in offset order (so in order
   * per key), at most `maxBatch` at a time, and commits a run once the handler resolved. A handler
   * that throws gets the same run again after a growing pause; partitions go on meanwhile. For
   * consumers whose work is cheaper done for many messages at once (the core's attempt records:
   * one store unit per run instead of one per message).
   */
  subscribeBatches({ stream, group, handler: untraced, maxBatch = 128 }: BatchSubscribeOptions): Subscription {
    const handler = tracedBatchHandler({ system: 'kafka', stream, group }, untraced);
    const abort = new AbortController();
    let fetching = true;
    let generation = 0;
    let member: GroupMember | undefined;
    const commits = coalescedCommits(
      () => member!.current,
      this.names,
      stream,
      group,
      this.logger,
      this.settings.commitIntervalMs ?? 100,
    );
    const running = new Set<Promise<void>>();
    // Runs one chunk until the handler resolved; false when stopped (the chunk stays uncommitted).
    const handle = async (messages: KafkaMessage[], heartbeat: () => Promise<void>): Promise<boolean> => {
      const last = messages.at(-1)!;
      if (!(await waitUntil(this.clock, last.notBefore, abort.signal, heartbeat))) return false;
      for (let failures = 0; ;) {
        if (abort.signal.aborted) return false;
        try {
          // A stop does not wait for the handler (it behaves like a crash): the run stays uncommitted.
          const handled = handler(messages);
          handled.catch(() => {}); // settles after a stop: nobody waits for it any more
          await unlessAborted(handled, abort.signal);
          return !abort.signal.aborted;
        } catch (error) {
          failures += 1;
          this.logger.warn(
            { err: error, stream, group, partition: last.partition, messages: messages.length },
            'stream handler failed; retrying',
          );
          await pause(Math.min(250 * 2 ** (failures - 1), 10_000), abort.signal);
          await heartbeat().catch(() => {});
        }
      }
    };
    const run = async (consumer: Consumer) => {
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 4,
        eachBatch: async ({ batch, heartbeat, resolveOffset, isRunning, isStale }) => {
          const { partition } = batch;
          const mine = generation;
          const records = batch.messages.map((message) => decodeRecord(stream, partition, message, mine));
          for (let from = 0; from < records.length;) {
            // Not resolved, so not committed: another consumer (or this one, later) gets them.
            if (!fetching || abort.signal.aborted) throw new Error('consumer stopped');
            if (!isRunning() || isStale() || generation !== mine) return;
            // Whole records, at most maxBatch messages unless one record alone has more.
            const chunk = records[from++]!.slice();
            while (from < records.length && chunk.length + records[from]!.length <= maxBatch)
              chunk.push(...records[from++]!);
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
    member = this.member(stream, group, abort.signal, run, () => {
      generation += 1;
      commits.discard();
    });
    return this.subscription({
      member,
      abort,
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

  /** Stops every subscription not stopped yet, all at once. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.subscriptions].map((c) => c.stop()));
  }

  /** The group member of a subscription: a kafkajs consumer, replaced by a new one after a crash (kafka-group-member.ts). */
  private member(
    stream: string,
    group: string,
    signal: AbortSignal,
    run: (consumer: Consumer) => Promise<void>,
    onNewGeneration: () => void,
  ): GroupMember {
    return new GroupMember({
      kafka: this.kafka,
      groupId: this.names.groupId(group, stream),
      topic: this.names.topic(stream),
      timings: this.settings,
      health: this.health,
      logger: this.logger,
      context: { stream, group },
      signal,
      run,
      onNewGeneration,
    });
  }

  /**
   * A started consumer as a Subscription. stop: `halt` (nothing more is fetched or handed out),
   * then its run loop ends, pending offset commits go out and it disconnects. drain: `settle` (what
   * runs finishes and commits) first, then stop.
   */
  private subscription(parts: {
    member: GroupMember;
    abort: AbortController;
    commits: CommitCoalescer;
    halt: () => void;
    settle: () => Promise<void>;
  }): Subscription {
    const { member, abort, commits, halt, settle } = parts;
    const stop = async () => {
      halt();
      abort.abort();
      member.release();
      await member.stopped();
      await commits.flushed();
      await member.disconnect();
      this.subscriptions.delete(subscription);
    };
    const subscription: Subscription = {
      ready: member.ready,
      stop,
      drain: async () => {
        await settle();
        await stop();
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }
}
