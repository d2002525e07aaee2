import { timeOrderedId } from '../lib/ids.js';
import { jsonOf } from '../lib/json-text.js';
import type { Logger } from '../log.js';
import type { Clock, StreamBus, Subscription } from '../streams/stream.js';
import { aborted, untilDone, type Worker } from '../workers/supervisor.js';
import { CONSUMER_GROUP, STREAM, type AttemptRecord, type DeliveryJob } from '../streams/catalog.js';
import { decide, type RetryPolicy } from './policy.js';
import type { PostOutcome, SignedPost, WebhookPoster } from './webhook-poster.js';
import { endAttemptSpan, startAttemptSpan } from './attempt-spans.js';
import { endSpan, runIn, traceparentOfSpan, withSpan } from '../tracing/tracer.js';

export interface DeliveryWorkerOptions {
  bus: StreamBus;
  /** Signs and sends each attempt (on this thread, or in poster threads). */
  poster: WebhookPoster;
  policy: RetryPolicy;
  clock: Clock;
  timeoutMs: number;
  /** Attempts queued with the poster or running at once for one endpoint. */
  endpointConcurrency: number;
  /** Jobs in flight per consumed stream (distinct endpoints). */
  maxInFlight?: number;
  /** Attempts queued with the poster or running at once, all endpoints together. Default 256. */
  maxAttempts?: number;
  /**
   * Where attempt records go: by default onto gateway.attempts for the core; a dispatcher running in
   * the core's process records them in the store directly (resolving once committed).
   */
  record?: (attempt: AttemptRecord) => Promise<void>;
  logger: Logger;
}

/** One attempt handed to the poster. */
export interface Dispatched {
  /** Resolves once the receiver answered or the attempt failed (rejects only when shutting down). */
  attempt: Promise<AttemptRecord>;
  /** Resolves once the record is stored (role all) or published on gateway.attempts (rejects only when shutting down). */
  recorded: Promise<void>;
}

/**
 * The webhook dispatcher: consumes delivery jobs (first attempts, due retries, manual replays),
 * makes one signed attempt each, and publishes the attempt record on gateway.attempts, with the
 * time of the next attempt when the policy says to retry. The core records it and schedules that
 * attempt when it is due; the dispatcher keeps no state beyond its streams.
 *
 * Attempts of one key are pipelined: a job is handed to the poster as soon as its endpoint has a
 * free slot, and the poster sends the attempts of a key one after the other, in order, each as soon
 * as the one before was answered. So an endpoint's deliveries follow each other at the pace of its
 * HTTP exchanges, not of this event loop's turns (which, under load, are most of the wait).
 */
export class DeliveryWorker implements Worker {
  readonly name = 'dispatcher';
  private readonly endpointSlots = new Map<number, Slots>();
  private readonly attemptSlots: Slots;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.attemptSlots = new Slots(options.maxAttempts ?? 256);
  }

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
        // The key's next job is handed to the poster at once (behind this one, in order); the job is
        // committed once its attempt record is (CommitAfter), so a crash before that sends it again.
        handler: async (message) => ({ durable: (await this.deliver(message.value as DeliveryJob, signal, `${stream} ${message.key}`)).recorded }),
      }),
    );
    await aborted(signal);
    // Attempts waiting behind another of their key are not sent: their jobs stay uncommitted, handed
    // out again at the next start. Running ones finish and are recorded.
    this.options.poster.cancelQueued();
    await Promise.all(subscriptions.map((s) => s.drain()));
  }

  /**
   * Hands one attempt of one job to the poster once its endpoint (and the dispatcher) has a free
   * slot, and resolves then. With an `order` key, the poster sends it after the attempts of that key
   * handed to it before. Expected failures are recorded, never thrown; a poster thread that died
   * fails its attempts, which are sent again. Rejects only when shutting down. A rate-limited
   * endpoint's attempt carries its pace: the poster sends it when its turn comes (EndpointPacer).
   */
  async deliver(job: DeliveryJob, signal: AbortSignal = new AbortController().signal, order?: string): Promise<Dispatched> {
    const { clock, poster, policy, logger } = this.options;
    const endpoint = this.slotsOf(job.endpoint.id);
    await endpoint.acquire();
    await this.attemptSlots.acquire();
    const release = () => {
      this.attemptSlots.release();
      endpoint.release();
      // An endpoint with nothing in flight keeps no slots: the map holds the endpoints sending now,
      // not every endpoint ever seen (10,000 companies each with its own endpoint).
      if (endpoint.idle && this.endpointSlots.get(job.endpoint.id) === endpoint) this.endpointSlots.delete(job.endpoint.id);
    };
    if (signal.aborted) {
      release();
      throw new Error('the dispatcher is stopping');
    }
    const queuedAt = clock.now();
    const request: SignedPost = { url: job.endpoint.url, id: job.event.id, body: jsonOf(job.event.body), secrets: job.endpoint.secrets, timeoutMs: this.options.timeoutMs, order };
    if (job.endpoint.rate_limit !== undefined) request.pace = { perSecond: job.endpoint.rate_limit, retryAfterMaxMs: policy.retryAfterMaxMs };
    // Tracing on: the attempt's span, whose context the receiver gets in `traceparent`.
    const span = startAttemptSpan(job);
    if (span !== undefined) request.traceparent = traceparentOfSpan(span);
    const work = async (): Promise<AttemptRecord> => {
      let response: PostOutcome;
      try {
        response = await untilDone('sending the attempt', () => poster.post(request), signal, logger);
      } catch (error) {
        if (span !== undefined) endSpan(span, error);
        throw error;
      } finally {
        release();
      }
      const now = clock.now();
      const decision = decide(job, { statusCode: response.statusCode, retryAfter: response.retryAfter, error: response.error }, policy, now);
      const record: AttemptRecord = {
        id: timeOrderedId('att_', 6),
        delivery_id: job.delivery_id,
        company_id: job.event.company_id,
        endpoint_id: job.endpoint.id,
        number: job.attempt,
        step: job.step,
        trigger: job.trigger,
        // It may have waited behind the key's earlier attempts: it started when its exchange did.
        started_at: Math.max(queuedAt, now - response.durationMs),
        duration_ms: response.durationMs,
        status_code: response.statusCode,
        response_body: response.body,
        error: response.error ?? (decision.outcome === 'delivered' ? null : `the receiver answered ${response.statusCode}`),
        outcome: decision.outcome,
        next_attempt_at: decision.nextAttemptAt,
        event_created_at: job.event.created_at,
      };
      if (job.endpoint.ordering === 'strict') record.ordered = true;
      if (span !== undefined) endAttemptSpan(span, record);
      logger.debug({ delivery_id: job.delivery_id, attempt: job.attempt, outcome: record.outcome, status_code: record.status_code }, 'webhook attempt');
      return record;
    };
    // In the attempt's span: its log lines carry its trace and span ids.
    const attempt = span === undefined ? work() : runIn(withSpan(span), work);
    const record = this.options.record ?? ((a: AttemptRecord) => this.options.bus.publish(STREAM.attempts, [{ key: String(a.company_id), id: a.id, value: a }]));
    // The record goes out in the attempt's trace context (its message on gateway.attempts carries it).
    const recordIt = (a: AttemptRecord) => untilDone('recording the attempt', () => record(a), signal, logger);
    const recorded = attempt.then((a) => (span === undefined ? recordIt(a) : runIn(withSpan(span), () => recordIt(a))));
    // Whoever awaits them sees the rejection; this only keeps a shutdown's from going unhandled.
    attempt.catch(() => {});
    recorded.catch(() => {});
    return { attempt, recorded };
  }

  /** Endpoints with an attempt in flight or waiting for a slot. */
  get endpointsSending(): number {
    return this.endpointSlots.size;
  }

  private slotsOf(endpointId: number): Slots {
    let slots = this.endpointSlots.get(endpointId);
    if (slots === undefined) this.endpointSlots.set(endpointId, (slots = new Slots(this.options.endpointConcurrency)));
    return slots;
  }
}

/** Bounded concurrency: a slow endpoint holds only its own slots. */
class Slots {
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

  /** Nothing holds a slot and nothing waits for one. */
  get idle(): boolean {
    return this.used === 0 && this.queue.length === 0;
  }
}
