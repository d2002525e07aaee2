import pRetry from 'p-retry';
import { Agent, request } from 'undici';
import { BlockedAddressError, SsrfGuard } from './ssrf.js';

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
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * The pooled HTTP client of the dispatcher (undici Agent). Every connection goes through the
 * SSRF guard's lookup, so the address checked is the address connected to.
 */
export class WebhookHttpClient {
  private readonly agent: Agent;
  private readonly quickRetries: number;

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
      this.guard.checkLiteral(new URL(req.url).hostname);
      try {
        return await this.once(req);
      } catch (error) {
        // The common case goes without the retry machinery; only a request that never reached the
        // receiver is tried again.
        if (!CONNECT_ERRORS.has(errorCode(error)) || this.quickRetries === 0) throw error;
      }
      return await pRetry(() => this.once(req), {
        retries: this.quickRetries - 1,
        minTimeout: 100,
        maxTimeout: 500,
        shouldRetry: ({ error }) => CONNECT_ERRORS.has(errorCode(error)),
      });
    } catch (error) {
      return { statusCode: null, retryAfter: null, body: null, error: describe(error) };
    }
  }

  private async once(req: WebhookRequest): Promise<WebhookResponse> {
    const response = await request(req.url, {
      method: 'POST',
      dispatcher: this.agent,
      headers: { 'content-type': 'application/json', 'user-agent': 'gateway-webhooks/1', ...req.headers },
      body: req.body,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    const body = await readHead(response.body);
    const retryAfter = response.headers['retry-after'];
    return { statusCode: response.statusCode, retryAfter: typeof retryAfter === 'string' ? retryAfter : null, body, error: null };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

async function readHead(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_KEEP_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_KEEP_BYTES).toString('utf8');
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
  if (name === 'TimeoutError' || name === 'AbortError' || errorCode(error).includes('TIMEOUT')) return 'timed out waiting for the receiver';
  const code = errorCode(error);
  return `${code ? `${code}: ` : ''}${(error as Error)?.message ?? String(error)}`.slice(0, 500);
}
