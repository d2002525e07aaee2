/**
 * The front's connections to the shards' cores: one undici Pool of keep-alive connections per
 * shard, and whether the shard is up. A shard whose connection is refused, reset or not made within
 * the connect timeout is marked down at once: its requests then answer 503 without being tried
 * (the other shards' requests never wait for it), and a probe reaches for its /healthz in the
 * background until it answers again.
 */
import { Pool, type Dispatcher } from 'undici';
import type { Logger } from '../log.js';
import type { FrontMetrics } from './front-metrics.js';

/** The shard's core could not be reached: its requests answer 503 with Retry-After. */
export class ShardUnavailable extends Error {
  constructor(readonly shard: number) {
    super(`shard ${shard} is unavailable`);
    this.name = 'ShardUnavailable';
  }
}

export interface ShardSetOptions {
  /** How long a new connection may take before the shard counts as down (GATEWAY_FRONT_CONNECT_TIMEOUT). */
  connectTimeoutMs: number;
  /** How long to wait for a shard's response head, and between its body's chunks. */
  responseTimeoutMs: number;
  /** Keep-alive connections per shard. */
  connections: number;
  /** How often a down shard is probed. */
  probeIntervalMs: number;
}

/** Error codes that mean the shard's process cannot be reached (as opposed to a slow or refusing answer). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

export function isUnreachable(error: unknown): boolean {
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && cause !== null && typeof cause === 'object'; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * How long a live event stream's answer may be silent before the front gives up on it: four of the
 * cores' keep-alive comments (src/http/live-events.ts, every 15 s).
 */
export const STREAM_IDLE_MS = 60_000;

interface ShardEntry {
  readonly shard: number;
  readonly url: string;
  readonly pool: Pool;
  /**
   * The connections of live event streams, which stay open as long as their client: apart from
   * `pool`, so that open streams never take the connections the other requests need. Not capped
   * here: the cores cap streams per company and per account.
   */
  readonly streams: Pool;
  up: boolean;
  probe: NodeJS.Timeout | null;
}

export class ShardSet {
  private readonly entries: ShardEntry[];
  private closed = false;

  constructor(
    urls: readonly string[],
    private readonly options: ShardSetOptions,
    private readonly metrics: FrontMetrics,
    private readonly logger: Logger,
  ) {
    this.entries = urls.map((url, shard) => {
      metrics.shardState(shard, true);
      return {
        shard,
        url,
        pool: new Pool(url, {
          connections: options.connections,
          connect: { timeout: options.connectTimeoutMs },
          headersTimeout: options.responseTimeoutMs,
          bodyTimeout: options.responseTimeoutMs,
          keepAliveTimeout: 4_000,
        }),
        streams: new Pool(url, {
          connections: null,
          connect: { timeout: options.connectTimeoutMs },
          headersTimeout: options.responseTimeoutMs,
          bodyTimeout: STREAM_IDLE_MS,
          keepAliveTimeout: 4_000,
        }),
        up: true,
        probe: null,
      };
    });
  }

  get count(): number {
    return this.entries.length;
  }

  urlOf(shard: number): string {
    return this.entries[shard]!.url;
  }

  isUp(shard: number): boolean {
    return this.entries[shard]?.up === true;
  }

  /** The shards held up now, in shard order. */
  live(): number[] {
    return this.entries.filter((entry) => entry.up).map((entry) => entry.shard);
  }

  /** The shards held down now. */
  down(): number[] {
    return this.entries.filter((entry) => !entry.up).map((entry) => entry.shard);
  }

  /**
   * Sends a request to a shard and answers its response. A shard held down, or one that cannot be
   * reached now, throws ShardUnavailable (and is marked down); a request whose body can be sent
   * again (none, or a buffer) is tried once more first, on a fresh connection, since a keep-alive
   * connection the core just closed fails the same way.
   */
  request(
    shard: number,
    options: Omit<Dispatcher.RequestOptions, 'origin'>,
    route: string,
    /** A live event stream: on a connection of its own (ShardEntry.streams). */
    longLived = false,
  ): Promise<Dispatcher.ResponseData> {
    return this.exchange(shard, options, route, longLived, async (pool, headArrived) => {
      const response = await pool.request(options);
      headArrived();
      return response;
    });
  }

  /**
   * Sends a request to a shard and writes its answer into the writable that `factory` returns for
   * the response head, chunk by chunk with backpressure, with no body stream between the two
   * (undici's stream()). Down-marking and the one retry are request()'s, up to the head: once the
   * factory ran, a failure is the exchange's own and is thrown as it is.
   */
  stream(
    shard: number,
    options: Omit<Dispatcher.RequestOptions, 'origin'>,
    route: string,
    longLived: boolean,
    factory: Dispatcher.StreamFactory,
  ): Promise<void> {
    return this.exchange(shard, options, route, longLived, async (pool, headArrived) => {
      await pool.stream(options, (data) => {
        headArrived();
        return factory(data);
      });
    });
  }

  /**
   * One exchange with a shard through `send`, which calls `headArrived` when the shard's response
   * head came: the exchange counts as answered then, with the time to the head (a live event
   * stream's body lasts as long as its client). A failure before the head is request()'s to judge
   * (retry once, or mark the shard down); one after it is thrown as it is.
   */
  private async exchange<T>(
    shard: number,
    options: Omit<Dispatcher.RequestOptions, 'origin'>,
    route: string,
    longLived: boolean,
    send: (pool: Pool, headArrived: () => void) => Promise<T>,
  ): Promise<T> {
    const entry = this.entries[shard];
    if (entry === undefined || !entry.up) {
      this.metrics.proxied(shard, route, 'unavailable');
      throw new ShardUnavailable(shard);
    }
    const replayable =
      options.body === undefined ||
      options.body === null ||
      Buffer.isBuffer(options.body) ||
      typeof options.body === 'string';
    const started = process.hrtime.bigint();
    let answered = false;
    const headArrived = (): void => {
      answered = true;
      this.metrics.proxied(shard, route, 'answered', Number(process.hrtime.bigint() - started) / 1e9);
    };
    for (let attempt = 1; ; attempt++) {
      try {
        return await send(longLived ? entry.streams : entry.pool, headArrived);
      } catch (error) {
        if (answered) throw error;
        if (!isUnreachable(error)) {
          this.metrics.proxied(shard, route, 'failed');
          throw error;
        }
        if (replayable && attempt === 1 && entry.up) continue;
        this.markDown(shard, error);
        this.metrics.proxied(shard, route, 'unavailable');
        throw new ShardUnavailable(shard);
      }
    }
  }

  /** Holds the shard down and probes it in the background until it answers. */
  markDown(shard: number, reason: unknown): void {
    const entry = this.entries[shard];
    if (entry === undefined || !entry.up || this.closed) return;
    entry.up = false;
    this.metrics.shardState(shard, false);
    this.logger.warn(
      { shard, url: entry.url, reason: reason instanceof Error ? reason.message : String(reason) },
      'shard down: its requests answer 503 until it answers again',
    );
    this.scheduleProbe(entry);
  }

  private scheduleProbe(entry: ShardEntry): void {
    if (this.closed) return;
    entry.probe = setTimeout(() => void this.probe(entry), this.options.probeIntervalMs);
    entry.probe.unref();
  }

  private async probe(entry: ShardEntry): Promise<void> {
    entry.probe = null;
    try {
      // Any answer means the process listens again; its own /healthz says how well it is.
      const response = await entry.pool.request({
        method: 'GET',
        path: '/healthz',
        headersTimeout: this.options.connectTimeoutMs + 1_000,
        bodyTimeout: 2_000,
      });
      await response.body.dump();
      if (this.closed) return;
      entry.up = true;
      this.metrics.shardState(entry.shard, true);
      this.logger.info({ shard: entry.shard, url: entry.url }, 'shard up again');
    } catch {
      this.scheduleProbe(entry);
    }
  }

  /** Each shard's /healthz: its status code, or null when it could not be reached within `timeoutMs`. */
  async health(timeoutMs: number): Promise<{ shard: number; url: string; status: number | null }[]> {
    return Promise.all(
      this.entries.map(async (entry) => {
        if (!entry.up) return { shard: entry.shard, url: entry.url, status: null };
        try {
          const response = await entry.pool.request({
            method: 'GET',
            path: '/healthz',
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
          });
          await response.body.dump();
          return { shard: entry.shard, url: entry.url, status: response.statusCode };
        } catch (error) {
          if (isUnreachable(error)) this.markDown(entry.shard, error);
          return { shard: entry.shard, url: entry.url, status: null };
        }
      }),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.entries) if (entry.probe !== null) clearTimeout(entry.probe);
    // Open streams end with the front: their pool is destroyed, not waited for.
    await Promise.all(this.entries.flatMap((entry) => [entry.pool.close(), entry.streams.destroy()]));
  }
}
