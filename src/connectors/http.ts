import { Agent, request, type Dispatcher } from 'undici';
import type { ProviderError } from './connector.js';

/** One provider answer: status, parsed JSON body (or undefined), Retry-After in ms when given. */
export interface ProviderAnswer {
  status: number;
  body: unknown;
  retryAfterMs: number | undefined;
}

export type CallOutcome =
  | { ok: true; answer: ProviderAnswer }
  | { ok: false; permanent: boolean; error: ProviderError; retryAfterMs?: number; body?: unknown };

/**
 * The HTTP client of every provider connector: pooled (undici Agent), with a timeout per call.
 * URLs may carry secrets (the bot-style API puts the token in the path): they never reach an
 * error text or a log line from here.
 */
export class ProviderHttp {
  private readonly agent: Agent;

  constructor(private readonly timeoutMs: number) {
    this.agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });
  }

  async call(
    method: Dispatcher.HttpMethod,
    url: string,
    headers: Record<string, string>,
    json?: unknown,
  ): Promise<CallOutcome> {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method,
        dispatcher: this.agent,
        headers: {
          accept: 'application/json',
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: json === undefined ? undefined : JSON.stringify(json),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      // Network failures and timeouts: the provider may or may not have seen the call.
      const code = (error as { code?: string; name?: string }).code ?? (error as Error).name ?? 'network_error';
      return {
        ok: false,
        permanent: false,
        error: { code: 'provider_unreachable', title: `The provider could not be reached (${code}).` },
      };
    }
    const text = await response.body.text().catch(() => '');
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const answer: ProviderAnswer = {
      status: response.statusCode,
      body,
      retryAfterMs: retryAfter(response.headers['retry-after']),
    };
    if (response.statusCode >= 200 && response.statusCode < 300) return { ok: true, answer };
    const transient = response.statusCode >= 500 || response.statusCode === 429 || response.statusCode === 408;
    return {
      ok: false,
      permanent: !transient,
      error: { code: `http_${response.statusCode}`, title: `The provider answered ${response.statusCode}.` },
      retryAfterMs: answer.retryAfterMs,
      body,
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function retryAfter(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** A provider's error code as it can stand in ours: a string or a number. */
export function isScalar(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}

/** A short, safe text from a provider body (error descriptions), at most 500 characters. */
export function clip(text: unknown): string | undefined {
  return typeof text === 'string' && text !== '' ? text.slice(0, 500) : undefined;
}
