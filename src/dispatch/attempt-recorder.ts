import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import type { AttemptEffects, DisableRule } from '../store/deliveries/delivery-rows.js';
import { OPERATOR_ENDPOINT_ID, recordAttemptEffects } from '../domain/operational-events.js';
import type { Store } from '../store/store.js';
import type { Clock, IncomingMessage, StreamBus } from '../streams/stream.js';
import { aborted, type Worker } from '../workers/supervisor.js';
import { CONSUMER_GROUP, STREAM, type AttemptRecord } from '../streams/catalog.js';
import { endpointDisableRule } from './endpoint-health.js';

/**
 * Core side of the dispatcher: records every attempt (the delivery's status, the endpoint's
 * health, auto-disable after `disableAfterMs` without success), with the operational events of what
 * it changed (`webhook.disabled`, `delivery.failed`) in the same transaction. Attempts of `--role worker`
 * processes come back on gateway.attempts; a dispatcher in the core's own process (role `all`)
 * hands them to `record` directly, which saves each attempt a round trip through a stream.
 */
export class AttemptRecorder implements Worker {
  readonly name = 'attempt-recorder';

  /** Attempts handed to `record` since its unit was queued, and that unit (it takes them all when it runs). */
  private queued: AttemptRecord[] = [];
  private unit: Promise<void> | null = null;

  private readonly disableRule: DisableRule;

  constructor(
    private readonly options: {
      store: Store;
      bus: StreamBus;
      clock: Clock;
      disableAfterMs: number;
      logger: Logger;
      metrics?: Metrics;
      /** Called once attempts of a strictly ordered endpoint are committed: its next delivery may go now. */
      onOrderedAttempt?: () => void;
    },
  ) {
    this.disableRule = endpointDisableRule(options.disableAfterMs);
  }

  /**
   * Records one attempt, committed (in the store's group commit) when it resolves. Idempotent on its
   * id. The attempts handed in until the store's next transaction runs are recorded in ONE unit of
   * it, as recordAll records a list, not in a unit each: a dispatcher in the core's own process
   * hands its attempts in one by one as they are answered, and a unit costs a savepoint.
   */
  record(attempt: AttemptRecord): Promise<void> {
    this.queued.push(attempt);
    if (this.unit !== null) return this.unit;
    const unit: Promise<void> = this.options.store
      .grouped(() => {
        const batch = this.queued;
        this.queued = [];
        this.unit = null;
        return { batch, effects: this.apply(batch) };
      })
      .then(
        ({ batch, effects }) => this.recorded(batch, effects),
        (error: unknown) => {
          // A transaction that failed before the unit ran (its callers try again): the next record starts a new one.
          if (this.unit === unit) {
            this.unit = null;
            this.queued = [];
          }
          throw error;
        },
      );
    this.unit = unit;
    return unit;
  }

  /**
   * Records attempts in order in ONE unit of the store's group commit (its savepoint, none per
   * attempt: all of them or none); resolves once committed. Idempotent on their ids.
   */
  async recordAll(attempts: readonly AttemptRecord[]): Promise<void> {
    const effects = await this.options.store.grouped(() => this.apply(attempts));
    this.recorded(attempts, effects);
  }

  private apply(attempts: readonly AttemptRecord[]): AttemptEffects {
    const { store, clock } = this.options;
    const now = clock.now();
    const effects = store.deliveries.applyAttempts(attempts, now, this.disableRule);
    if (effects.failed.length > 0 || effects.disabled.length > 0) recordAttemptEffects(store, effects, now);
    return effects;
  }

  private recorded(attempts: readonly AttemptRecord[], effects: AttemptEffects): void {
    const { store, metrics, logger, onOrderedAttempt } = this.options;
    if (onOrderedAttempt !== undefined && attempts.some((attempt) => attempt.ordered === true)) onOrderedAttempt();
    for (const { endpointId, reason } of effects.disabled)
      logger.warn({ endpoint_id: endpointId, reason }, 'webhook endpoint disabled');
    if (metrics === undefined) return;
    effects.disabled.forEach(() => metrics.endpointStateChanged('disabled', 'gateway'));
    for (const deliveryId of effects.failed) {
      const attempt = attempts.find((a) => a.delivery_id === deliveryId);
      const target = attempt?.endpoint_id === OPERATOR_ENDPOINT_ID ? 'operator' : 'company';
      metrics.deliveryFailed(target, attempt?.outcome === 'gone' ? 'gone' : 'attempts_exhausted');
    }
    for (const attempt of attempts) {
      metrics.attemptRecorded(attempt, () =>
        attempt.event_created_at === undefined
          ? store.deliveries.eventCreatedAt(attempt.delivery_id)
          : Date.parse(attempt.event_created_at),
      );
    }
  }

  async run(signal: AbortSignal): Promise<void> {
    const { bus } = this.options;
    const values = (messages: readonly IncomingMessage[]) => messages.map((message) => message.value as AttemptRecord);
    // Kafka (role core): a fetched run of a partition's attempts is recorded in one store unit.
    const subscription =
      bus.subscribeBatches !== undefined
        ? bus.subscribeBatches({
            stream: STREAM.attempts,
            group: CONSUMER_GROUP.core,
            handler: (messages) => this.recordAll(values(messages)),
          })
        : bus.subscribe({
            stream: STREAM.attempts,
            group: CONSUMER_GROUP.core,
            handler: (message) => this.record(message.value as AttemptRecord),
          });
    await aborted(signal);
    await subscription.drain();
  }
}
