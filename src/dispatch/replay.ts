import type { EventRecord } from '../streams/catalog.js';
import type { Logger } from '../log.js';
import type { DeliveryRow } from '../store/deliveries/delivery-rows.js';
import type { DeliveryFilter } from '../store/deliveries/delivery-search.js';
import type { Store } from '../store/store.js';
import type { WebhookEndpointRow } from '../store/resources/webhooks.js';
import { pause, type Clock, type OutgoingMessage, type StreamBus } from '../streams/stream.js';
import type { Worker } from '../workers/supervisor.js';
import { jobKey, redeliveryStream, STREAM, type DeliveryJob } from '../streams/catalog.js';
import { publishRedeliveries } from './attempt-spans.js';
import { activeContext, type Context } from '../tracing/tracer.js';
import type { OperatorWebhookConfig } from '../config/config.js';
import { OPERATOR_ENDPOINT_ID, operatorJobEndpoint } from '../domain/operational-events.js';
import { jobEndpoint } from '../domain/webhook-endpoints.js';

/** Why a delivery cannot be attempted now: its endpoint is gone or disabled. */
export class ReplayRefused extends Error {}

/** The delivery's endpoint is disabled: a due retry is held until it is enabled again. */
export class EndpointDisabled extends ReplayRefused {}

/** Endpoints read for one batch of attempts (by id; undefined: not found), so each is read once. */
export type EndpointsRead = Map<number, WebhookEndpointRow | undefined>;

/**
 * The next attempt of a stored delivery, built from its endpoint as it is right now (address,
 * active flag, the secrets valid now): what retries and replays send. Throws ReplayRefused when the
 * endpoint no longer exists or is disabled. `endpoints` keeps the endpoints of a batch read at once.
 * A delivery to the operator webhook takes its address and secrets from `operator`, the
 * configuration as it is now (refused when it is no longer configured).
 */
export function nextAttempt(
  store: Store,
  delivery: DeliveryRow,
  trigger: DeliveryJob['trigger'],
  now: number,
  endpoints?: EndpointsRead,
  operator: OperatorWebhookConfig | null = null,
): DeliveryJob {
  if (delivery.endpoint_id === OPERATOR_ENDPOINT_ID) {
    if (operator === null)
      throw new ReplayRefused(
        `Delivery ${delivery.id} is to the operator webhook, and GATEWAY_OPERATOR_WEBHOOK_URL is not set.`,
      );
    return attemptOf(delivery, trigger, operatorJobEndpoint(operator));
  }
  let endpoint = endpoints?.get(delivery.endpoint_id);
  if (endpoint === undefined || endpoint.company_id !== delivery.company_id) {
    endpoint = store.webhooks.find(delivery.company_id, delivery.endpoint_id);
    endpoints?.set(delivery.endpoint_id, endpoint);
  }
  if (endpoint === undefined)
    throw new ReplayRefused(`The endpoint ${delivery.endpoint_id} of delivery ${delivery.id} no longer exists.`);
  if (!endpoint.active)
    throw new EndpointDisabled(
      `The endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason ?? 'no reason recorded'}).`,
    );
  return attemptOf(delivery, trigger, jobEndpoint(endpoint, now));
}

function attemptOf(
  delivery: DeliveryRow,
  trigger: DeliveryJob['trigger'],
  endpoint: DeliveryJob['endpoint'],
): DeliveryJob {
  return {
    delivery_id: delivery.id,
    event: JSON.parse(delivery.event) as EventRecord,
    endpoint,
    attempt: delivery.attempt_count + 1,
    step: trigger === 'auto' ? delivery.auto_attempts + 1 : null,
    trigger,
  };
}

/** A manual attempt to publish, with the trace context of its delivery's first publish. */
export interface Replay {
  job: DeliveryJob;
  origin: string | null;
}

/**
 * Manual replays: one job with trigger 'manual' on gateway.replays, signed with the endpoint's
 * current secrets. Its outcome is recorded like any attempt, but it never enters the automatic
 * schedule (see decide()).
 */
export class Replayer {
  constructor(
    private readonly options: {
      store: Store;
      bus: StreamBus;
      clock: Clock;
      operatorWebhook?: OperatorWebhookConfig | null;
    },
  ) {}

  job(delivery: DeliveryRow, endpoints?: EndpointsRead): DeliveryJob {
    return nextAttempt(
      this.options.store,
      delivery,
      'manual',
      this.options.clock.now(),
      endpoints,
      this.options.operatorWebhook,
    );
  }

  /** Replays one delivery now: answers its job; throws ReplayRefused when its endpoint is gone or disabled. */
  async replayOne(delivery: DeliveryRow): Promise<DeliveryJob> {
    const job = this.job(delivery);
    await this.publish([{ job, origin: delivery.traceparent }]);
    return job;
  }

  /**
   * The first attempt of a delivery made outside the fan-out (a test event from the portal): an
   * automatic attempt on gateway.events, keyed like the fan-out's, so a failure is retried on the
   * schedule like any event. Throws ReplayRefused when its endpoint is gone or disabled.
   */
  async sendFirst(delivery: DeliveryRow): Promise<DeliveryJob> {
    const job = nextAttempt(
      this.options.store,
      delivery,
      'auto',
      this.options.clock.now(),
      undefined,
      this.options.operatorWebhook,
    );
    await this.options.bus.publish(STREAM.events, [{ key: jobKey(job), id: `${delivery.id}:1`, value: job }]);
    return job;
  }

  async replay(deliveries: readonly DeliveryRow[]): Promise<number> {
    const replays: Replay[] = [];
    const endpoints: EndpointsRead = new Map();
    for (const delivery of deliveries) {
      try {
        replays.push({ job: this.job(delivery, endpoints), origin: delivery.traceparent });
      } catch (error) {
        if (!(error instanceof ReplayRefused)) throw error;
      }
    }
    await this.publish(replays);
    return replays.length;
  }

  /**
   * Publishes manual attempts, each in a span under the caller's (the admin request's) and linked
   * to its delivery's first publish (`origin`, the delivery's traceparent).
   */
  async publish(replays: readonly Replay[]): Promise<void> {
    await publishRouted(
      this.options.bus,
      STREAM.replays,
      // Keyed by delivery, not endpoint: replays have no order to keep, so a bulk replay to one
      // endpoint runs up to its endpoint concurrency at once instead of one delivery at a time.
      // A rate-limited endpoint's go with its other attempts, keyed by endpoint (redeliveryStream).
      replays.map(({ job, origin }) => ({
        job,
        message: {
          key: job.endpoint.rate_limit === undefined ? job.delivery_id : jobKey(job),
          id: `${job.delivery_id}:manual:${job.attempt}`,
          value: job,
        },
        origin,
      })),
      activeContext(),
    );
  }
}

/**
 * Publishes retries or replays on `usual`, those of rate-limited endpoints on gateway.events
 * (redeliveryStream), each in its span (publishRedeliveries).
 */
export async function publishRouted(
  bus: StreamBus,
  usual: string,
  items: readonly { job: DeliveryJob; message: OutgoingMessage; origin: string | null }[],
  parent: Context,
): Promise<void> {
  const byStream = new Map<string, { message: OutgoingMessage; origin: string | null }[]>();
  for (const { job, message, origin } of items) {
    const stream = redeliveryStream(job, usual);
    let list = byStream.get(stream);
    if (list === undefined) byStream.set(stream, (list = []));
    list.push({ message, origin });
  }
  for (const [stream, list] of byStream) await publishRedeliveries(bus, stream, list, parent);
}

/** Works through bulk replay tasks in the background, resumable from their cursor after a restart. */
export class ReplayTaskWorker implements Worker {
  readonly name = 'replay-tasks';

  constructor(
    private readonly options: {
      store: Store;
      replayer: Replayer;
      clock: Clock;
      logger: Logger;
      idleMs?: number;
      maxFailures?: number;
    },
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    const { store, replayer, clock, logger, idleMs = 200, maxFailures = 8 } = this.options;
    let failures = 0;
    while (!signal.aborted) {
      const task = store.replayTasks.next();
      if (task === undefined) {
        await pause(idleMs, signal);
        continue;
      }
      try {
        const filter = JSON.parse(task.filter) as DeliveryFilter;
        const page = store.deliverySearch.scan(filter, task.cursor_seq, 100);
        const enqueued = await replayer.replay(page);
        store.replayTasks.progress(task.id, enqueued, page.at(-1)?.seq ?? task.cursor_seq, clock.now());
        if (page.length < 100) store.replayTasks.finish(task.id, 'completed', null, clock.now());
        failures = 0;
      } catch (error) {
        // Refusals are skipped inside replay(); anything else is most likely the stream or the store
        // being away for a moment: the same page is tried again (the cursor did not move) after a
        // growing pause. One that keeps failing would hold back every later task, so after
        // `maxFailures` in a row the task ends as failed, with the error, and the next goes on.
        if (signal.aborted) return;
        failures += 1;
        const message = error instanceof Error ? error.message : String(error);
        if (failures < maxFailures) {
          logger.warn({ err: error, task_id: task.id, failures }, 'bulk replay page failed; trying again');
          await pause(Math.min(250 * 2 ** failures, 15_000), signal);
          continue;
        }
        logger.error({ err: error, task_id: task.id, failures }, 'bulk replay task failed');
        store.replayTasks.finish(task.id, 'failed', message, clock.now());
        failures = 0;
      }
    }
  }
}
