import type { ServerResponse } from 'node:http';
import { Conflict, TooManyRequests } from '../errors/errors.js';
import type { CompanyEventLog } from '../store/pipeline/company-event-log.js';
import type { AppContext } from './context.js';

/** Limits of the live event streams (docs/api.md, "The live event stream"). */
export interface LiveStreamLimits {
  /** Open streams a company may hold at once; the next gets 429. */
  perCompany: number;
  /** Open streams an account may hold at once over all its companies; the next gets 429. */
  perAccount: number;
  /** Events read from the log in one pass: at most this many are held in memory per stream. */
  batch: number;
  /** How often the log is read for new events, in milliseconds. */
  pollMs: number;
  /** How often a `:` comment keeps idle proxies from closing the stream, in milliseconds. */
  heartbeatMs: number;
}

export const LIVE_STREAM_LIMITS: LiveStreamLimits = {
  perCompany: 5,
  perAccount: 20,
  batch: 100,
  pollMs: 250,
  heartbeatMs: 15_000,
};

/** What one open stream has done so far: read from the log, written, and queued in this process. */
export interface LiveStreamStats {
  accountId: number;
  companyId: number;
  /** Events read from the log, those read again after a full socket dropped them included. */
  eventsRead: number;
  /** Events handed to the socket. */
  eventsWritten: number;
  /** The socket's buffer is full: the stream reads nothing more until it drains. */
  waitingDrain: boolean;
  /** Bytes this process holds for the socket, not yet taken by the kernel. */
  queuedBytes: number;
}

/** Who opens a stream, and from where. */
export interface StreamRequest {
  accountId: number;
  companyId: number;
  /** The Last-Event-ID header ('' when absent): the stream starts right after that event. */
  lastEventId: string;
  /** Checked before every read of the log: false (the session ended, the company went) ends the stream. */
  stillAllowed: () => boolean;
}

const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;

interface OpenStream {
  stats: LiveStreamStats;
  end: () => void;
}

/**
 * The live event streams of this process: each a Server-Sent Events response fed from the company
 * event log (store/pipeline/company-event-log.ts), never from the pipeline itself, so a stream that
 * falls behind delays nobody. A stream reads at most one batch at a time and writes until the
 * socket's buffer is full; then it reads nothing more until the socket drains. What it holds in
 * memory is bounded by one batch and the socket's high-water mark, however slow its reader.
 */
export class LiveEventStreams {
  private readonly open = new Set<OpenStream>();

  constructor(
    private readonly log: CompanyEventLog,
    private readonly limits: LiveStreamLimits = LIVE_STREAM_LIMITS,
  ) {}

  /**
   * Answers the request with the stream: 409 for a Last-Event-ID not kept, 429 over a cap (both
   * thrown before anything is written), otherwise 200 and events until the client goes.
   */
  serve(ctx: AppContext, request: StreamRequest): void {
    const start = this.startSeq(request);
    const retryAfter = Math.ceil(this.limits.heartbeatMs / 1000);
    if (this.count((s) => s.companyId === request.companyId) >= this.limits.perCompany)
      throw new TooManyRequests(retryAfter);
    if (this.count((s) => s.accountId === request.accountId) >= this.limits.perAccount)
      throw new TooManyRequests(retryAfter);
    // From now on the company's events are logged, for this stream and any that resumes from it.
    this.log.watch(request.companyId, Date.now());
    ctx.respond = false;
    const res = ctx.res;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    this.stream(res, request, start);
  }

  /** What every open stream has done so far. */
  stats(): LiveStreamStats[] {
    return [...this.open].map(({ stats }) => ({ ...stats }));
  }

  /** Ends every open stream (the daemon stops: its server waits for open connections). */
  closeAll(): void {
    for (const stream of [...this.open]) stream.end();
  }

  private startSeq({ companyId, lastEventId }: StreamRequest): number {
    if (lastEventId === '') return this.log.newestSeq();
    const seq = EVENT_ID.test(lastEventId) ? this.log.seqOf(companyId, lastEventId) : undefined;
    if (seq === undefined)
      throw new Conflict(
        `Last-Event-ID ${JSON.stringify(lastEventId.slice(0, 80))} is not a kept event of company ${companyId} (unknown, or older than the retention). Reconnect without it to stream from now.`,
      );
    return seq;
  }

  private count(match: (stats: LiveStreamStats) => boolean): number {
    let n = 0;
    for (const { stats } of this.open) if (match(stats)) n += 1;
    return n;
  }

  private stream(res: ServerResponse, request: StreamRequest, start: number): void {
    const { log, limits } = this;
    const stats: LiveStreamStats = {
      accountId: request.accountId,
      companyId: request.companyId,
      eventsRead: 0,
      eventsWritten: 0,
      waitingDrain: false,
      get queuedBytes() {
        return res.writableLength;
      },
    };
    let seq = start;
    let ended = false;
    let timer: NodeJS.Timeout | undefined;
    const heartbeat = setInterval(() => {
      if (!request.stillAllowed()) return end();
      log.watch(request.companyId, Date.now());
      if (!stats.waitingDrain) res.write(': keep-alive\n\n');
    }, limits.heartbeatMs);
    const entry: OpenStream = { stats, end: () => end() };
    const end = (): void => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      if (timer !== undefined) clearTimeout(timer);
      this.open.delete(entry);
      // A reader that does not read would keep an ended stream's socket open with its buffer: cut it.
      if (stats.waitingDrain) res.destroy();
      else if (!res.writableEnded) res.end();
    };
    this.open.add(entry);
    res.on('close', end);
    res.on('error', end);

    const pump = (): void => {
      timer = undefined;
      if (ended) return;
      if (!request.stillAllowed()) return end();
      const events = log.eventsAfter(request.companyId, seq, limits.batch);
      stats.eventsRead += events.length;
      for (const event of events) {
        seq = event.seq;
        stats.eventsWritten += 1;
        if (!res.write(`id: ${event.event_id}\nevent: ${event.name}\ndata: ${event.envelope}\n\n`)) {
          // The rest of the batch is dropped, not held: it is read again once the socket drains.
          stats.waitingDrain = true;
          res.once('drain', () => {
            stats.waitingDrain = false;
            pump();
          });
          return;
        }
      }
      timer = setTimeout(pump, events.length === limits.batch ? 0 : limits.pollMs);
    };
    res.write(': stream open\n\n');
    pump();
  }
}
