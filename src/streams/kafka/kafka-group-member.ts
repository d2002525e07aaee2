import type { Consumer, Kafka } from 'kafkajs';
import type { Logger } from '../../log.js';
import { errorReason, type KafkaClientHealth } from './kafka-health.js';
import { pause, unlessAborted } from '../stream.js';

/** How fast a group notices a member that died, and how often members speak to it. */
export interface GroupTimings {
  /**
   * A member the group coordinator has not heard from for this long is dropped and its partitions
   * go to the live members. Default 10 s.
   */
  sessionTimeoutMs?: number;
  /** How often a member heartbeats (at most a third of the session timeout). Default 1 s. */
  heartbeatIntervalMs?: number;
}

export const DEFAULT_SESSION_TIMEOUT_MS = 10_000;
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 1_000;

/** The longest pause before a replacement consumer starts (the pause grows from 250 ms while starts keep failing). */
const MAX_RESTART_PAUSE_MS = 2_000;

export interface GroupMemberOptions {
  kafka: Kafka;
  /** The Kafka group id and the topic it consumes. */
  groupId: string;
  topic: string;
  timings: GroupTimings;
  health: KafkaClientHealth;
  logger: Logger;
  /** The subscription's stream and group, for the logs. */
  context: { stream: string; group: string };
  /** Aborted when the subscription stops: no consumer is started any more. */
  signal: AbortSignal;
  /** Starts consuming (consumer.run with its handler); resolves once it runs. */
  run: (consumer: Consumer) => Promise<void>;
  /**
   * Called at every join of the group (a rebalance) and when a consumer is replaced: what was
   * fetched or done before belongs to a membership that is over and is never committed.
   */
  onNewGeneration: () => void;
}

/**
 * One member of a consumer group, kept alive. kafkajs is told never to restart a crashed consumer
 * itself (`restartOnFailure`), so every crash, and every start that fails (the broker away, a
 * coordinator that stays gone), takes one path here: the kafkajs consumer, with whatever state
 * broke it, is disconnected and dropped, and a new one starts after a short pause (250 ms, growing
 * to 2 s while starts keep failing), until the subscription stops. From the failure until the new
 * consumer joins its group, the member shows as recovering in the bus's client health.
 */
export class GroupMember {
  readonly ready: Promise<void>;
  private markJoined: () => void = () => {};
  private consumer: Consumer;
  private readonly running: Promise<void>;
  private readonly name: string;

  constructor(private readonly options: GroupMemberOptions) {
    this.ready = new Promise<void>((resolve) => (this.markJoined = resolve));
    this.name = `${options.context.group}.${options.context.stream}`;
    this.consumer = this.create();
    this.running = this.keepRunning();
  }

  /** The kafkajs consumer in use now: offset commits go through it. */
  get current(): Consumer {
    return this.consumer;
  }

  /** Lets `ready` waiters go (a stop before the first join); the member itself stops with the signal. */
  release(): void {
    this.markJoined();
  }

  /** Resolves once the signal aborted and no consumer will start any more; the last one is still connected. */
  stopped(): Promise<void> {
    return this.running;
  }

  async disconnect(): Promise<void> {
    await this.consumer.disconnect().catch(() => {});
  }

  private create(): Consumer {
    const { kafka, groupId, timings } = this.options;
    const heartbeatInterval = timings.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: timings.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
      heartbeatInterval,
      // kafkajs heartbeats between fetches: a fetch that waits no longer than a heartbeat interval
      // lets an idle member learn of a rebalance (and take its share) within about one interval.
      maxWaitTimeInMs: Math.min(Math.max(heartbeatInterval, 100), 5_000),
      retry: { retries: 5, restartOnFailure: async () => false },
    });
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      this.options.onNewGeneration();
      const partitions = event.payload.memberAssignment[this.options.topic] ?? [];
      this.options.logger.info({ ...this.options.context, partitions }, 'consumer joined its group');
      this.options.health.recovered('consumer', this.name);
      this.markJoined();
    });
    return consumer;
  }

  /** Starts the consumer, and after a crash or a failed start replaces it; resolves once the signal aborted. */
  private async keepRunning(): Promise<void> {
    const { signal, logger, context, health, topic } = this.options;
    for (let failures = 0; !signal.aborted;) {
      const consumer = this.consumer;
      let crashed: (error: unknown) => void = () => {};
      const crash = new Promise<unknown>((resolve) => (crashed = resolve));
      consumer.on(consumer.events.CRASH, (event) => crashed(event.payload.error));
      let reason: string;
      try {
        await consumer.connect();
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        await this.options.run(consumer);
        failures = 0;
        const error = await unlessAborted(crash, signal);
        if (signal.aborted) return;
        reason = errorReason(error);
        logger.error({ err: error, ...context }, 'kafka consumer crashed; replacing it');
      } catch (error) {
        if (signal.aborted) return;
        failures += 1;
        reason = errorReason(error);
        logger.error({ err: error, ...context, failures }, 'kafka consumer failed to start; trying again');
      }
      health.recovering('consumer', this.name, reason);
      this.options.onNewGeneration();
      await consumer.disconnect().catch(() => {});
      await pause(Math.min(250 * 2 ** Math.max(failures - 1, 0), MAX_RESTART_PAUSE_MS), signal);
      if (signal.aborted) return;
      this.consumer = this.create();
      health.recreated('consumer', this.name, reason);
    }
  }
}
