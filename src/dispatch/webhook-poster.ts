import type { Worker } from 'node:worker_threads';
import { startWorkerThread } from '../lib/threads.js';
import type { Logger } from '../log.js';
import type { WebhookHttpClient, WebhookResponse } from './http-client.js';
import { signatureHeaders } from './signing.js';
import { EndpointPacer } from './endpoint-pacer.js';
import type { BrokerDestination } from '../../schemas/objects/destination.js';
import type { BrokerDestinations } from './destinations/pool.js';

/** One attempt's request: signed (Standard Webhooks) with every given secret when it is sent. */
export interface SignedPost {
  url: string;
  /** The event id: the `webhook-id` header. */
  id: string;
  body: string;
  secrets: readonly string[];
  timeoutMs: number;
  /**
   * Attempts with the same `order` are sent one after the other, in the order `post` was called:
   * each starts as soon as the one before it was answered (or failed), without a round trip to the
   * caller. Without it an attempt starts at once.
   */
  order?: string;
  /**
   * The W3C trace context of the attempt's span, sent as the `traceparent` header (tracing on
   * only). The signature covers the id, the timestamp and the body, so the header leaves it as is.
   */
  traceparent?: string;
  /**
   * A rate-limited endpoint's pace: the attempt is sent no sooner than 1/perSecond seconds after
   * the previous one of its `order` key (of its url without one), later after a 429 (EndpointPacer).
   */
  pace?: { perSecond: number; retryAfterMaxMs: number };
  /**
   * A broker endpoint (src/dispatch/destinations/): the event is published there, signed the same
   * way, instead of POSTed to `url` (then its target without credentials, for the record only).
   */
  broker?: { endpointId: number; destination: BrokerDestination; key: string };
}

export interface PostOutcome extends WebhookResponse {
  durationMs: number;
  /** Set when a broker confirmed the event (a webhook's success is its 2xx status). */
  delivered?: true;
}

/** Signs and sends webhook attempts; never throws for what the receiver or the network did. */
export interface WebhookPoster {
  post(request: SignedPost): Promise<PostOutcome>;
  /** Attempts queued behind an earlier one of their `order` fail when their turn comes, unsent (shutting down). */
  cancelQueued(): void;
  close(): Promise<void>;
}

/** What a cancelled attempt fails with (see `WebhookPoster.cancelQueued`). */
export const CANCELLED = 'the attempt was cancelled before it started (shutting down)';

const settle = (): void => {};

/** Signs and sends on the calling thread. */
export class InlinePoster implements WebhookPoster {
  /** The last attempt of each order key, while one is queued or running. */
  private readonly tails = new Map<string, Promise<void>>();
  /** Attempts queued behind another, numbered; those numbered up to `cancelledThrough` never start. */
  private queued = 0;
  private cancelledThrough = 0;
  private readonly pacer = new EndpointPacer();

  constructor(
    private readonly client: WebhookHttpClient,
    /** Where a broker endpoint's attempts go; without it they fail. */
    private readonly brokers?: BrokerDestinations,
  ) {}

  post(request: SignedPost): Promise<PostOutcome> {
    const { order } = request;
    if (order === undefined) return this.send(request);
    const previous = this.tails.get(order);
    let outcome: Promise<PostOutcome>;
    if (previous === undefined) outcome = this.send(request);
    else {
      const ticket = (this.queued += 1);
      outcome = previous.then(() =>
        ticket <= this.cancelledThrough ? Promise.reject(new Error(CANCELLED)) : this.send(request),
      );
    }
    const tail = outcome.then(settle, settle);
    this.tails.set(order, tail);
    void tail.then(() => {
      if (this.tails.get(order) === tail) this.tails.delete(order);
    });
    return outcome;
  }

  cancelQueued(): void {
    this.cancelledThrough = this.queued;
    this.pacer.cancelWaiting();
  }

  private async send({
    url,
    id,
    body,
    secrets,
    timeoutMs,
    traceparent,
    order,
    pace,
    broker,
  }: SignedPost): Promise<PostOutcome> {
    const paceKey = order ?? url;
    if (pace !== undefined) await this.pacer.take(paceKey, pace.perSecond, () => new Error(CANCELLED));
    const began = performance.now();
    let response: WebhookResponse | undefined;
    try {
      // The signature timestamp is real time: receivers check it against their own clock.
      const headers = signatureHeaders(id, new Date(), body, secrets);
      if (traceparent !== undefined) headers.traceparent = traceparent;
      if (broker === undefined) response = await this.client.post({ url, headers, body, timeoutMs });
      else if (this.brokers === undefined) throw new Error('this poster sends no broker destination');
      else {
        const answer = await this.brokers.send(broker.endpointId, broker.destination, {
          id,
          body,
          headers,
          key: broker.key,
          timeoutMs,
        });
        const { statusCode, retryAfter, body: none, error } = answer;
        const durationMs = Math.round(performance.now() - began);
        return answer.delivered
          ? { statusCode, retryAfter, body: none, error, durationMs, delivered: true }
          : { statusCode, retryAfter, body: none, error, durationMs };
      }
    } finally {
      // Answered whatever became of the attempt: the pacer keeps a key while it has one open.
      if (pace !== undefined)
        this.pacer.answered(paceKey, response?.statusCode ?? null, response?.retryAfter ?? null, pace.retryAfterMaxMs);
    }
    const { statusCode, retryAfter, body: answer, error } = response;
    return { statusCode, retryAfter, body: answer, error, durationMs: Math.round(performance.now() - began) };
  }

  async close(): Promise<void> {
    await Promise.all([this.client.close(), this.brokers?.close()]);
  }
}

/** What a poster thread is started with (src/dispatch/poster-thread.ts). */
export interface PosterThreadData {
  allowHosts: readonly string[];
}

// Run from the sources (vitest), the thread is the built one: `npm test` builds first.
const THREAD_SCRIPT = import.meta.url.endsWith('.ts')
  ? new URL('../../dist/src/dispatch/poster-thread.js', import.meta.url)
  : new URL('./poster-thread.js', import.meta.url);

/**
 * Signs and sends in worker threads (GATEWAY_WEBHOOK_THREADS), each with its own pooled client and
 * SSRF guard, so that the HTTP work of deliveries (the largest share of their CPU) runs beside the
 * event loop that serves the API and the callbacks instead of on it. The attempts of one order key
 * all go to the same thread, which sends them in order. A thread that dies fails the attempts it
 * had (their stream messages are handled again) and is started again on the next one.
 */
export class ThreadedPoster implements WebhookPoster {
  private readonly threads: PosterThread[];
  private turn = 0;

  constructor(options: { threads: number; data: PosterThreadData; logger: Logger }) {
    this.threads = Array.from(
      { length: Math.max(1, options.threads) },
      () => new PosterThread(options.data, options.logger),
    );
  }

  post(request: SignedPost): Promise<PostOutcome> {
    let index: number;
    if (request.order !== undefined) index = hash(request.order) % this.threads.length;
    else {
      index = this.turn;
      this.turn = (this.turn + 1) % this.threads.length;
    }
    return this.threads[index]!.post(request);
  }

  cancelQueued(): void {
    for (const thread of this.threads) thread.cancelQueued();
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.close()));
  }
}

/** FNV-1a of a string: spreads order keys over the threads. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

interface Pending {
  resolve: (outcome: PostOutcome) => void;
  reject: (error: Error) => void;
}

/**
 * Messages between the event loop and a poster thread. Each message carries every attempt (or
 * answer) of one turn of its sender's event loop: a message costs both threads a wake-up and an
 * event of its own, whatever it holds.
 */
export type PosterRequest = { n: number; request: SignedPost };
/** From the event loop: a batch of attempts, or `cancel-queued` (WebhookPoster.cancelQueued). */
export type PosterMessage = PosterRequest[] | 'cancel-queued';
export type PosterAnswer = { n: number; outcome: PostOutcome } | { n: number; error: string };

class PosterThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  /** Attempts of this turn, posted together once it ends. */
  private outbox: PosterRequest[] = [];

  constructor(
    private readonly data: PosterThreadData,
    private readonly logger: Logger,
  ) {}

  post(request: SignedPost): Promise<PostOutcome> {
    const n = (this.seq += 1);
    return new Promise<PostOutcome>((resolve, reject) => {
      this.pending.set(n, { resolve, reject });
      // Sent once the work under way (its promise callbacks included) is done, so the attempts
      // handed out together go in one message; not in the next turn of the event loop, which
      // under load first reads and handles every request that came meanwhile: that turn was
      // several ms of each webhook's latency.
      if (this.outbox.push({ n, request }) === 1) process.nextTick(() => this.flush());
    });
  }

  /** Sends what this turn queued first, so that its queued attempts are cancelled too. */
  cancelQueued(): void {
    if (this.worker === null && this.outbox.length === 0) return;
    this.flush();
    this.worker?.postMessage('cancel-queued' satisfies PosterMessage);
  }

  private flush(): void {
    const batch = this.outbox;
    if (batch.length === 0) return; // the thread stopped meanwhile and failed them
    this.outbox = [];
    (this.worker ??= this.start()).postMessage(batch satisfies PosterMessage);
  }

  private start(): Worker {
    // A thread holds only the attempts in flight: a small heap keeps the daemon's memory budget. Its
    // young generation takes the garbage of every attempt: 12 MiB costs fewer scavenges than 4.
    const worker = startWorkerThread(THREAD_SCRIPT, {
      workerData: this.data,
      resourceLimits: { maxYoungGenerationSizeMb: 12, maxOldGenerationSizeMb: 96 },
    });
    worker.unref();
    worker.on('message', (answers: PosterAnswer[]) => {
      for (const answer of answers) {
        const pending = this.pending.get(answer.n);
        this.pending.delete(answer.n);
        if ('outcome' in answer) pending?.resolve(answer.outcome);
        else pending?.reject(new Error(answer.error));
      }
    });
    worker.on('error', (error) => this.logger.error({ err: error }, 'webhook poster thread failed'));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      const lost = [...this.pending.values()];
      this.pending.clear();
      this.outbox = [];
      for (const pending of lost)
        pending.reject(new Error(`the webhook poster thread stopped (exit code ${code}) during the attempt`));
    });
    return worker;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker !== null) await worker.terminate();
  }
}
