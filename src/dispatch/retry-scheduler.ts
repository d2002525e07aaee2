import type { Logger } from '../log.js';
import type { DeliveryRow } from '../store/deliveries/delivery-rows.js';
import type { Store } from '../store/store.js';
import type { Clock, StreamBus } from '../streams/stream.js';
import { repeatPasses, type Worker } from '../workers/supervisor.js';
import { jobKey, STREAM, type DeliveryJob } from '../streams/catalog.js';
import { EndpointDisabled, nextAttempt, publishRouted, ReplayRefused, type EndpointsRead } from './replay.js';
import { releaseHeld } from './held-release.js';
import { ROOT_CONTEXT } from '../tracing/tracer.js';
import type { OperatorWebhookConfig } from '../config/config.js';
import { OPERATOR_ENDPOINT_ID, recordDeliveryFailed } from '../domain/operational-events.js';
import type { Metrics } from '../metrics/metrics.js';

export interface RetrySchedulerOptions {
  store: Store;
  bus: StreamBus;
  clock: Clock;
  logger: Logger;
  /** How often the store is asked for due retries. */
  pollMs?: number;
  /** Due retries handed out per pass. */
  batch?: number;
  /** GATEWAY_OPERATOR_WEBHOOK_*: where the operator's deliveries go now. */
  operatorWebhook?: OperatorWebhookConfig | null;
  metrics?: Metrics;
}

/**
 * Core side of the retry schedule. A failed attempt leaves its delivery `pending` with the time of
 * the next attempt (set when the attempt is recorded); when that time has come, the scheduler builds
 * the job from the endpoint as it is then (a new address, a rotated secret, a disabled endpoint all
 * count) and publishes it on gateway.retries for the dispatcher (gateway.events for a rate-limited
 * endpoint: redeliveryStream). A delivery whose endpoint is gone fails there, and stays replayable
 * (its `delivery.failed` event commits with it); one whose endpoint is disabled is held until it
 * is enabled again.
 *
 * Every pass first lets held deliveries out that may go now (releaseHeld): they are due at once and
 * go out in the same pass. `wake` runs a pass at once (an attempt of a strictly ordered endpoint
 * ended: its next delivery may go).
 *
 * Crash safety: the delivery is marked scheduled only after the stream acknowledged the job, so a
 * crash in between publishes it once more (the same attempt, at least once), never loses it. The
 * embedded stream may keep the job in memory only: a start after a crash makes a scheduled delivery
 * whose job is in no log due again (UnsentDeliveryStore).
 */
export class RetryScheduler implements Worker {
  readonly name = 'retry-scheduler';
  private readonly wakers = new Set<() => void>();
  private woken = false;

  constructor(private readonly options: RetrySchedulerOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const { pollMs = 250, batch = 200, logger } = this.options;
    await repeatPasses(signal, async () => ((await this.pass()) < batch && !this.takeWake() ? 'idle' : 'more'), {
      idleMs: pollMs,
      logger,
      what: 'scheduling due webhook retries',
      wake: (wakeUp) => {
        if (this.takeWake()) {
          queueMicrotask(wakeUp);
          return () => {};
        }
        this.wakers.add(wakeUp);
        return () => this.wakers.delete(wakeUp);
      },
    });
  }

  /** Runs the next pass now instead of after the poll interval. */
  wake(): void {
    this.woken = true;
    for (const wakeUp of this.wakers) wakeUp();
    this.wakers.clear();
  }

  private takeWake(): boolean {
    const woken = this.woken;
    this.woken = false;
    return woken;
  }

  /** Lets out the held deliveries that may go, then hands out the retries due now; answers how many deliveries were due. */
  async pass(): Promise<number> {
    const { store, bus, clock, logger, batch = 200 } = this.options;
    const now = clock.now();
    releaseHeld(store, now);
    const due = store.deliveries.due(now, batch);
    if (due.length === 0) return 0;
    const jobs: DeliveryJob[] = [];
    const scheduled: DeliveryRow[] = [];
    const endpoints: EndpointsRead = new Map();
    for (const delivery of due) {
      try {
        jobs.push(nextAttempt(store, delivery, 'auto', now, endpoints, this.options.operatorWebhook));
        scheduled.push(delivery);
      } catch (error) {
        if (error instanceof EndpointDisabled) {
          store.held.holdDueDelivery(delivery, 'endpoint_disabled', now);
          logger.info(
            { delivery_id: delivery.id, endpoint_id: delivery.endpoint_id },
            'webhook retry held: the endpoint is disabled',
          );
          continue;
        }
        if (!(error instanceof ReplayRefused)) throw error;
        const failed = store.transaction(() => {
          if (!store.deliveries.fail(delivery, error.message, now)) return false;
          recordDeliveryFailed(store, delivery.id, now);
          return true;
        });
        if (failed)
          this.options.metrics?.deliveryFailed(
            delivery.endpoint_id === OPERATOR_ENDPOINT_ID ? 'operator' : 'company',
            'endpoint_unavailable',
          );
        logger.info(
          { delivery_id: delivery.id, endpoint_id: delivery.endpoint_id },
          'webhook retry dropped: the endpoint is gone',
        );
      }
    }
    if (jobs.length > 0) {
      // Each retry starts a trace of its own, linked to its delivery's first publish. Recoverable:
      // once marked scheduled, the pending delivery stands for its job (src/store/deliveries/unsent-deliveries.ts).
      await publishRouted(
        bus,
        STREAM.retries,
        jobs.map((job, index) => ({
          job,
          message: { key: jobKey(job), id: `${job.delivery_id}:${job.attempt}`, value: job, recoverable: true },
          origin: scheduled[index]!.traceparent,
        })),
        ROOT_CONTEXT,
      );
      store.deliveries.scheduled(scheduled, clock.now());
    }
    return due.length;
  }
}
