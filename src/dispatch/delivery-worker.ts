import { timeOrderedId } from '../domain/ids.js';
import type { Logger } from '../log.js';
import type { Clock, StreamBus, Subscription } from '../streams/stream.js';
import { aborted, untilDone, type Worker } from '../workers/supervisor.js';
import { CONSUMER_GROUP, STREAM, type AttemptRecord, type DeliveryJob } from './jobs.js';
import { decide, type RetryPolicy } from './policy.js';
import type { WebhookPoster } from './webhook-poster.js';

export interface DeliveryWorkerOptions {
  bus: StreamBus;
  /** Signs and sends each attempt (on this thread, or in poster threads). */
  poster: WebhookPoster;
  policy: RetryPolicy;
  clock: Clock;
  timeoutMs: number;
  /** Attempts running at once against one endpoint. */
  endpointConcurrency: number;
  /** Jobs in flight per consumed stream (distinct endpoints). */
  maxInFlight?: number;
  /**
   * Where attempt records go: by default onto gateway.attempts for the core; a dispatcher running in
   * the core's process records them in the store directly (resolving once committed).
   */
  record?: (attempt: AttemptRecord) => Promise<void>;
  logger: Logger;
}

/**
 * The webhook dispatcher: consumes delivery jobs (first attempts, due retries, manual replays),
 * makes one signed attempt each, and publishes the attempt record on gateway.attempts, with the
 * time of the next attempt when the policy says to retry. The core records it and schedules that
 * attempt when it is due; the dispatcher keeps no state beyond its streams.
 */
export class DeliveryWorker implements Worker {
  readonly name = 'dispatcher';
  private readonly endpointSlots = new Map<number, EndpointSlots>();

  constructor(private readonly options: DeliveryWorkerOptions) {}

  /** The streams it consumes: first attempts, due retries, manual replays. */
  streams(): string[] {
    return [STREAM.events, STREAM.retries, STREAM.replays];
  }

  async run(signal: AbortSignal): Promise<void> {
    const subscriptions: Subscription[] = this.streams().map((stream) =>
      this.options.bus.subscribe({
        stream,
        group: CONSUMER_GROUP.dispatcher,
        maxInFlight: this.options.maxInFlight ?? 64,
        // The next job of the endpoint goes out as soon as this one's answer came; the job is
        // committed once its attempt record is (CommitAfter), so a crash in between sends it again.
        handler: async (message) => ({ durable: (await this.deliver(message.value as DeliveryJob, signal)).recorded }),
      }),
    );
    await aborted(signal);
    await Promise.all(subscriptions.map((s) => s.drain()));
  }

  /**
   * One attempt of one job; expected failures are recorded, never thrown. Resolves once the
   * receiver answered (or the attempt failed); `recorded` resolves once its record is stored (role
   * all) or published on gateway.attempts, retried until then (rejects only when shutting down).
   */
  async deliver(job: DeliveryJob, signal: AbortSignal = new AbortController().signal): Promise<{ attempt: AttemptRecord; recorded: Promise<void> }> {
    const { clock, poster, policy, logger } = this.options;
    const slots = this.slotsOf(job.endpoint.id);
    await slots.acquire();
    let attempt: AttemptRecord;
    try {
      const body = JSON.stringify(job.event.body);
      const startedAt = clock.now();
      const response = await poster.post({ url: job.endpoint.url, id: job.event.id, body, secrets: job.endpoint.secrets, timeoutMs: this.options.timeoutMs });
      const decision = decide(job, { statusCode: response.statusCode, retryAfter: response.retryAfter, error: response.error }, policy, clock.now());
      attempt = {
        id: timeOrderedId('att_', 6),
        delivery_id: job.delivery_id,
        company_id: job.event.company_id,
        endpoint_id: job.endpoint.id,
        number: job.attempt,
        step: job.step,
        trigger: job.trigger,
        started_at: startedAt,
        duration_ms: response.durationMs,
        status_code: response.statusCode,
        response_body: response.body,
        error: response.error ?? (decision.outcome === 'delivered' ? null : `the receiver answered ${response.statusCode}`),
        outcome: decision.outcome,
        next_attempt_at: decision.nextAttemptAt,
        event_created_at: job.event.created_at,
      };
    } finally {
      slots.release();
    }
    logger.debug({ delivery_id: job.delivery_id, attempt: job.attempt, outcome: attempt.outcome, status_code: attempt.status_code }, 'webhook attempt');
    const record = this.options.record ?? ((a: AttemptRecord) => this.options.bus.publish(STREAM.attempts, [{ key: String(a.company_id), id: a.id, value: a }]));
    const recorded = untilDone('recording the attempt', () => record(attempt), signal, logger);
    // Whoever awaits it sees the rejection; this only keeps a shutdown's from going unhandled.
    recorded.catch(() => {});
    return { attempt, recorded };
  }

  private slotsOf(endpointId: number): EndpointSlots {
    let slots = this.endpointSlots.get(endpointId);
    if (slots === undefined) this.endpointSlots.set(endpointId, (slots = new EndpointSlots(this.options.endpointConcurrency)));
    return slots;
  }
}

/** Bounded concurrency per endpoint: a slow endpoint holds only its own slots. */
class EndpointSlots {
  private used = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async acquire(): Promise<void> {
    if (this.used < this.limit) {
      this.used += 1;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.used -= 1;
  }
}
