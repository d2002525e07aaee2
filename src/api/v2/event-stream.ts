import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { ServerResponse } from 'node:http';
import { Conflict, TooManyRequests } from '../../errors/errors.js';
import type { AppState } from '../../http/context.js';
import { CompanyEventLog, type KeptEvent } from '../../store/pipeline/company-event-log.js';
import type { Store } from '../../store/store.js';
import { findCompany } from '../lookup.js';

/** Limits of the live stream; the defaults suit production, tests shrink them. */
export interface EventStreamLimits {
  /** Open streams a company may hold at once; the next gets 429. */
  perCompany: number;
  /** Events read from the log per write pass. */
  batch: number;
  /** How often the log is read for new events, in milliseconds. */
  pollMs: number;
  /** How often a `:` comment keeps idle proxies from closing the stream, in milliseconds. */
  heartbeatMs: number;
}

export const EVENT_STREAM_LIMITS: EventStreamLimits = { perCompany: 5, batch: 100, pollMs: 250, heartbeatMs: 15_000 };

const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;

/** A v2 event row's envelope `{event, type, object}` as webhooks carry it, or undefined for v1 payloads. */
function envelopeOf(event: KeptEvent): { name: string; data: string } | undefined {
  const parsed = JSON.parse(event.payload) as { name: string; body: Record<string, unknown> };
  const body = parsed.body;
  if (typeof body.type !== 'string' || typeof body.event !== 'string' || !('object' in body)) return undefined;
  return { name: parsed.name, data: JSON.stringify(body) };
}

/**
 * `GET /api/p2/companies/:companyId/events/stream`: the company's v2 events as Server-Sent Events,
 * read from the kept event log (the outbox rows of the retention). `Last-Event-ID` resumes right
 * after that event; an id not kept is a 409. Writing waits for `drain` whenever the socket's buffer
 * is full, so a reader that does not read holds only its own connection, never the pipeline.
 */
export function eventStreamRoutes(
  router: Router<AppState>,
  store: Store,
  auth: Middleware<AppState>,
  limits: EventStreamLimits = EVENT_STREAM_LIMITS,
): void {
  const log = new CompanyEventLog(store.db);
  const open = new Map<number, number>();

  router.get('/api/p2/companies/:companyId/events/stream', auth, (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const lastId = ctx.get('Last-Event-ID');
    let row: number;
    if (lastId === '') row = log.newestRow();
    else {
      const found = EVENT_ID.test(lastId) ? log.rowOf(company.id, lastId) : undefined;
      if (found === undefined) {
        throw new Conflict(
          `Last-Event-ID ${JSON.stringify(lastId.slice(0, 80))} is not a kept event of company ${company.id} (unknown, or older than the retention). Reconnect without it to stream from now.`,
        );
      }
      row = found;
    }
    const count = open.get(company.id) ?? 0;
    if (count >= limits.perCompany) throw new TooManyRequests(Math.ceil(limits.heartbeatMs / 1000));
    open.set(company.id, count + 1);

    ctx.respond = false;
    const res = ctx.res;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    streamFrom(res, company.id, row, log, limits, () => {
      const left = (open.get(company.id) ?? 1) - 1;
      if (left <= 0) open.delete(company.id);
      else open.set(company.id, left);
    });
  });
}

function streamFrom(
  res: ServerResponse,
  companyId: number,
  startRow: number,
  log: CompanyEventLog,
  limits: EventStreamLimits,
  onClose: () => void,
): void {
  let row = startRow;
  let closed = false;
  let waitingDrain = false;
  let timer: NodeJS.Timeout | undefined;
  const heartbeat = setInterval(() => {
    if (!waitingDrain) res.write(': keep-alive\n\n');
  }, limits.heartbeatMs);
  const close = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    if (timer !== undefined) clearTimeout(timer);
    onClose();
  };
  res.on('close', close);
  res.on('error', close);

  const pump = (): void => {
    timer = undefined;
    if (closed) return;
    const events = log.eventsAfter(companyId, row, limits.batch);
    for (const event of events) {
      row = event.row;
      const envelope = envelopeOf(event);
      if (envelope === undefined) continue;
      const more = res.write(`id: ${event.message_id}\nevent: ${envelope.name}\ndata: ${envelope.data}\n\n`);
      if (!more) {
        waitingDrain = true;
        res.once('drain', () => {
          waitingDrain = false;
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
