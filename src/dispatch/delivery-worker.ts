import { timeOrderedId } from '../lib/ids.js';
import { jsonOf } from '../lib/json-text.js';
import type { Logger } from '../log.js';
import type { Clock, StreamBus, Subscription } from '../streams/stream.js';
import { aborted, untilDone, type Worker } from '../workers/supervisor.js';
import { CONSUMER_GROUP, jobKey, STREAM, type AttemptRecord, type DeliveryJob } from '../streams/catalog.js';
import { decide, type RetryPolicy } from './policy.js';
import type { PostOutcome, SignedPost, WebhookPoster } from './webhook-poster.js';
import { endAttemptSpan, startAttemptSpan } from './attempt-spans.js';
import { endSpan, isTracing, runIn, traceparentOfSpan, withSpan, type Span } from '../tracing/tracer.js';

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
        handler: async (message) => ({
          durable: (await this.deliver(message.value as DeliveryJob, signal, `${stream} ${message.key}`)).recorded,
        }),
        // First attempts kept in memory only go to the poster as soon as they are committed.
        direct:
          stream === STREAM.events
            ? (message) => this.deliverNow(message.value as DeliveryJob, signal, `${stream} ${message.key}`)
            : undefined,
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
  async deliver(
    job: DeliveryJob,
    signal: AbortSignal = new AbortController().signal,
    order?: string,
  ): Promise<Dispatched> {
    const endpoint = this.slotsOf(job.endpoint.id);
    await endpoint.acquire();
    await this.attemptSlots.acquire();
    if (signal.aborted) {
      this.release(job.endpoint.id, endpoint);
      throw new Error('the dispatcher is stopping');
    }
    return this.send(job, signal, order, endpoint);
  }

  /**
   * `deliver` without waiting: the attempt goes to the poster now if its endpoint and the
   * dispatcher have a free slot, and the answer is when its record is stored; null when it has to
   * wait (or tracing is on: the attempt's span then continues the stream consumer's), so that it
   * takes the runner's way. What the event loop holds meanwhile is the attempt alone.
   */
  deliverNow(job: DeliveryJob, signal: AbortSignal, order: string): Promise<void> | null {
    if (signal.aborted || isTracing()) return null;
    const endpoint = this.slotsOf(job.endpoint.id);
    if (!endpoint.tryAcquire()) return null;
    if (!this.attemptSlots.tryAcquire()) {
      this.release(job.endpoint.id, endpoint, false);
      return null;
    }
    return this.send(job, signal, order, endpoint).recorded;
  }

  /** Signs and sends the attempt, its slots taken, and records its outcome. */
  private send(job: DeliveryJob, signal: AbortSignal, order: string | undefined, endpoint: Slots): Dispatched {
    const { clock, poster, policy, logger } = this.options;
    const queuedAt = clock.now();
    const request: SignedPost = {
      url: job.endpoint.url,
      id: job.event.id,
      body: jsonOf(job.event.body),
      secrets: job.endpoint.secrets,
      timeoutMs: this.options.timeoutMs,
      order,
    };
    if (job.endpoint.destination !== undefined)
      request.broker = { endpointId: job.endpoint.id, destination: job.endpoint.destination, key: jobKey(job) };
    if (job.endpoint.rate_limit !== undefined)
      request.pace = { perSecond: job.endpoint.rate_limit, retryAfterMaxMs: policy.retryAfterMaxMs };
    // Tracing on: the attempt's span, whose context the receiver gets in `traceparent`.
    const span = startAttemptSpan(job);
    if (span !== undefined) request.traceparent = traceparentOfSpan(span);
    // Kept while the attempt is in flight instead of the job, whose event may be large.
    const of = attemptOf(job);
    const attempt = untilDone('sending the attempt', () => poster.post(request), signal, logger).then(
      (response) => {
        this.release(of.endpoint_id, endpoint);
        // In the attempt's span: its log lines carry its trace and span ids.
        return span === undefined
          ? this.recordOf(of, response, queuedAt, undefined)
          : runIn(withSpan(span), () => this.recordOf(of, response, queuedAt, span));
      },
      (error: unknown) => {
        this.release(of.endpoint_id, endpoint);
        if (span !== undefined) endSpan(span, error);
        throw error;
      },
    );
    // The record goes out in the attempt's trace context (its message on gateway.attempts carries it).
    const recordIt = (a: AttemptRecord) => untilDone('recording the attempt', () => this.record(a), signal, logger);
    const recorded = attempt.then((a) => (span === undefined ? recordIt(a) : runIn(withSpan(span), () => recordIt(a))));
    // Whoever awaits it sees the rejection; this only keeps a shutdown's from going unhandled
    // (`attempt`'s goes on into `recorded`).
    recorded.catch(ignore);
    return { attempt, recorded };
  }

  /** The attempt's record: its outcome and, when the policy says to retry, when. */
  private recordOf(of: AttemptOf, response: PostOutcome, queuedAt: number, span: Span | undefined): AttemptRecord {
    const now = this.options.clock.now();
    const decision = decide(
      of,
      {
        statusCode: response.statusCode,
        retryAfter: response.retryAfter,
        error: response.error,
        ...(response.delivered === true ? { delivered: true as const } : {}),
      },
      this.options.policy,
      now,
    );
    const record: AttemptRecord = {
      id: timeOrderedId('att_', 6),
      delivery_id: of.delivery_id,
      company_id: of.company_id,
      endpoint_id: of.endpoint_id,
      number: of.number,
      step: of.step,
      trigger: of.trigger,
      // It may have waited behind the key's earlier attempts: it started when its exchange did.
      started_at: Math.max(queuedAt, now - response.durationMs),
      duration_ms: response.durationMs,
      status_code: response.statusCode,
      response_body: response.body,
      error:
        response.error ?? (decision.outcome === 'delivered' ? null : `the receiver answered ${response.statusCode}`),
      outcome: decision.outcome,
      next_attempt_at: decision.nextAttemptAt,
      event_created_at: of.event_created_at,
    };
    if (of.ordered) record.ordered = true;
    if (span !== undefined) endAttemptSpan(span, record);
    this.options.logger.debug(
      { delivery_id: of.delivery_id, attempt: of.number, outcome: record.outcome, status_code: record.status_code },
      'webhook attempt',
    );
    return record;
  }

  /** Stores the record (role all) or publishes it on gateway.attempts for the core. */
  private record(attempt: AttemptRecord): Promise<void> {
    if (this.options.record !== undefined) return this.options.record(attempt);
    return this.options.bus.publish(STREAM.attempts, [
      { key: String(attempt.company_id), id: attempt.id, value: attempt },
    ]);
  }

  /**
   * Frees the attempt's slots. An endpoint with nothing in flight keeps no slots: the map holds the
   * endpoints sending now, not every endpoint ever seen (10,000 companies each with its own endpoint).
   */
  private release(endpointId: number, endpoint: Slots, attemptSlot = true): void {
    if (attemptSlot) this.attemptSlots.release();
    endpoint.release();
    if (endpoint.idle && this.endpointSlots.get(endpointId) === endpoint) this.endpointSlots.delete(endpointId);
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
    if (this.tryAcquire()) return;
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  /** Takes a slot if one is free and nothing waits for one. */
  tryAcquire(): boolean {
    if (this.used >= this.limit || this.queue.length > 0) return false;
    this.used += 1;
    return true;
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

/** What an attempt's record takes from its job. */
type AttemptOf = Pick<AttemptRecord, 'delivery_id' | 'company_id' | 'endpoint_id' | 'number' | 'step' | 'trigger'> & {
  event_created_at: string;
  ordered: boolean;
  retrySchedule?: number[];
};

function attemptOf(job: DeliveryJob): AttemptOf {
  return {
    delivery_id: job.delivery_id,
    company_id: job.event.company_id,
    endpoint_id: job.endpoint.id,
    number: job.attempt,
    step: job.step,
    trigger: job.trigger,
    event_created_at: job.event.created_at,
    ordered: job.endpoint.ordering === 'strict',
    ...(job.endpoint.retry_schedule === undefined ? {} : { retrySchedule: job.endpoint.retry_schedule }),
  };
}

function ignore(): void {}
