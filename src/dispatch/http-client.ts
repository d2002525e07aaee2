import pRetry from 'p-retry';
import { Agent, type Dispatcher } from 'undici';
import { BlockedAddressError, SsrfGuard } from '../net/ssrf.js';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface WebhookResponse {
  statusCode: number | null;
  retryAfter: string | null;
  /** First 4 KiB of the answer, as text. */
  body: string | null;
  error: string | null;
}

const RESPONSE_KEEP_BYTES = 4096;
/** Errors before a request reached the receiver: safe to try again at once, a few times. */
const CONNECT_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** Webhook URLs parsed, per client: endpoints are few and every attempt to one reuses its URL. */
const MAX_TARGETS = 1024;

/** Where a webhook URL is sent: what undici's `request(url)` would take from it. */
interface Target {
  origin: string;
  path: string;
}

/**
 * The pooled HTTP client of the dispatcher (undici Agent). Every connection goes through the
 * SSRF guard's lookup, so the address checked is the address connected to.
 */
export class WebhookHttpClient {
  private readonly agent: Agent;
  private readonly quickRetries: number;
  private readonly targets = new Map<string, Target>();

  constructor(
    private readonly guard: SsrfGuard,
    options: { connections?: number; quickRetries?: number } = {},
  ) {
    this.agent = new Agent({ connections: options.connections ?? 64, connect: { lookup: guard.lookup } });
    this.quickRetries = options.quickRetries ?? 2;
  }

  /** Never throws: a failure before any answer comes back as `error`. */
  async post(req: WebhookRequest): Promise<WebhookResponse> {
    try {
      const target = this.targetOf(req.url);
      try {
        return await this.once(target, req);
      } catch (error) {
        // The common case goes without the retry machinery; only a request that never reached the
        // receiver is tried again.
        if (!CONNECT_ERRORS.has(errorCode(error)) || this.quickRetries === 0) throw error;
      }
      return await pRetry(() => this.once(target, req), {
        retries: this.quickRetries - 1,
        minTimeout: 100,
        maxTimeout: 500,
        shouldRetry: ({ error }) => CONNECT_ERRORS.has(errorCode(error)),
      });
    } catch (error) {
      return { statusCode: null, retryAfter: null, body: null, error: describe(error) };
    }
  }

  /** The URL parsed and its IP literal checked once, not on every attempt. */
  private targetOf(url: string): Target {
    let target = this.targets.get(url);
    if (target === undefined) {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        throw new Error(`unsupported protocol ${parsed.protocol} (http or https only)`);
      this.guard.checkLiteral(parsed.hostname);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.targets.size >= MAX_TARGETS) this.targets.delete(this.targets.keys().next().value!);
      this.targets.set(url, target);
    }
    return target;
  }

  /**
   * One request through undici's dispatch API: no response stream or async iteration, only the
   * first 4 KiB of the answer kept. The attempt is bounded as a whole (queueing, connecting,
   * sending, waiting and reading) by one plain timer.
   */
  private once(target: Target, req: WebhookRequest): Promise<WebhookResponse> {
    return new Promise((resolve, reject) => {
      const exchange = new Exchange(req.timeoutMs, resolve, reject);
      this.agent.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'gateway-webhooks/1', ...req.headers },
          body: req.body,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        },
        exchange,
      );
    });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** The whole attempt took longer than its timeout. */
class AttemptTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** The end of the answer we do not read (past the first 4 KiB). */
class ResponseCutError extends Error {}

/** One request's answer, gathered from undici's dispatch callbacks; settles exactly once. */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private settled = false;
  private statusCode = 0;
  private retryAfter: string | null = null;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    timeoutMs: number,
    private readonly resolve: (response: WebhookResponse) => void,
    private readonly reject: (error: Error) => void,
  ) {
    // A plain timer, not AbortSignal.timeout (about 15 µs each, and weak references for the GC).
    this.timer = setTimeout(expire, timeoutMs, this).unref();
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // A request that waited for a connection past its deadline is not sent.
    if (this.settled) controller.abort(new AttemptTimeoutError('the attempt timed out before it was sent'));
    else this.controller = controller;
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // informational (1xx): the answer follows
    this.statusCode = statusCode;
    const retryAfter = headers['retry-after'];
    this.retryAfter = typeof retryAfter === 'string' ? retryAfter : null;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= RESPONSE_KEEP_BYTES) {
      // Enough of the answer: the rest is not read (the connection is dropped, not drained).
      this.answer();
      controller.abort(new ResponseCutError('the rest of the answer is not read'));
    }
  }

  onResponseEnd(): void {
    this.answer();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.fail(error);
  }

  /** The deadline passed: the attempt fails now, and the request is dropped where it is. */
  timeout(): void {
    this.fail(new AttemptTimeoutError('timed out waiting for the receiver'));
    this.controller?.abort(new AttemptTimeoutError('timed out waiting for the receiver'));
  }

  private answer(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    const whole = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    this.resolve({
      statusCode: this.statusCode,
      retryAfter: this.retryAfter,
      body: whole.toString('utf8', 0, Math.min(this.size, RESPONSE_KEEP_BYTES)),
      error: null,
    });
  }

  private fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.reject(error);
  }
}

function expire(exchange: Exchange): void {
  exchange.timeout();
}

function errorCode(error: unknown): string {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.cause?.code ?? e?.code ?? '';
}

function describe(error: unknown): string {
  if (error instanceof BlockedAddressError) return error.message;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof BlockedAddressError) return cause.message;
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError' || errorCode(error).includes('TIMEOUT'))
    return 'timed out waiting for the receiver';
  const code = errorCode(error);
  return `${code ? `${code}: ` : ''}${(error as Error)?.message ?? String(error)}`.slice(0, 500);
}
