import { Worker } from 'node:worker_threads';
import type { Logger } from '../log.js';
import type { WebhookHttpClient, WebhookResponse } from './http-client.js';
import { signatureHeaders } from './signing.js';

/** One attempt's request: signed (Standard Webhooks) with every given secret when it is sent. */
export interface SignedPost {
  url: string;
  /** The event id: the `webhook-id` header. */
  id: string;
  body: string;
  secrets: readonly string[];
  timeoutMs: number;
}

export interface PostOutcome extends WebhookResponse {
  durationMs: number;
}

/** Signs and sends webhook attempts; never throws for what the receiver or the network did. */
export interface WebhookPoster {
  post(request: SignedPost): Promise<PostOutcome>;
  close(): Promise<void>;
}

/** Signs and sends on the calling thread. */
export class InlinePoster implements WebhookPoster {
  constructor(private readonly client: WebhookHttpClient) {}

  async post({ url, id, body, secrets, timeoutMs }: SignedPost): Promise<PostOutcome> {
    // The signature timestamp is real time: receivers check it against their own clock.
    const headers = signatureHeaders(id, new Date(), body, secrets);
    const began = performance.now();
    const response = await this.client.post({ url, headers, body, timeoutMs });
    return { ...response, durationMs: Math.round(performance.now() - began) };
  }

  close(): Promise<void> {
    return this.client.close();
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
 * event loop that serves the API and the callbacks instead of on it. A thread that dies fails the
 * attempts it had (their stream messages are handled again) and is started again on the next one.
 */
export class ThreadedPoster implements WebhookPoster {
  private readonly threads: PosterThread[];
  private turn = 0;

  constructor(options: { threads: number; data: PosterThreadData; logger: Logger }) {
    this.threads = Array.from({ length: Math.max(1, options.threads) }, () => new PosterThread(options.data, options.logger));
  }

  post(request: SignedPost): Promise<PostOutcome> {
    const thread = this.threads[this.turn]!;
    this.turn = (this.turn + 1) % this.threads.length;
    return thread.post(request);
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.close()));
  }
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
      if (this.outbox.push({ n, request }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.outbox;
    if (batch.length === 0) return; // the thread stopped meanwhile and failed them
    this.outbox = [];
    (this.worker ??= this.start()).postMessage(batch);
  }

  private start(): Worker {
    // A thread holds only the attempts in flight: a small heap keeps the daemon's memory budget.
    const worker = new Worker(THREAD_SCRIPT, { workerData: this.data, resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 96 } });
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
      for (const pending of lost) pending.reject(new Error(`the webhook poster thread stopped (exit code ${code}) during the attempt`));
    });
    return worker;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker !== null) await worker.terminate();
  }
}
