/**
 * The front (`gateway serve --role front`, docs/scaling.md "The front"): every public route,
 * proxied to the core of the shard that owns it over keep-alive connections. It holds no state: the
 * owner is read from the request (src/front/routing.ts), account-wide lists are merged from every
 * shard (src/front/merge.ts), and several fronts can run side by side.
 *
 * What it passes on: the method, the path and query as sent, every header but the hop-by-hop ones
 * (traceparent and the signature headers of callbacks included) plus X-Forwarded-For,
 * X-Forwarded-Proto and X-Forwarded-Host; the body byte for byte (streamed, or held when the owner
 * is read from it). What it answers: the shard's status, headers and body as they come. A shard that
 * cannot be reached answers 503 with Retry-After in the contract's error shape, at once.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { secretDigest, matchesSecretDigest } from '../domain/tokens.js';
import { AppError, InternalError, ServiceUnavailable, Unauthorized, ValidationFailed } from '../errors/errors.js';
import { errorEntries, httpStatusOf } from '../http/render-errors.js';
import type { Logger } from '../log.js';
import { companyOfInput, companyOfQuery } from './company-input.js';
import type { FrontMetrics } from './front-metrics.js';
import { mergeList, type ListInput, type Merged, type ShardAnswer } from './merge.js';
import { routeOf, shardOfRoute, type Route } from './routing.js';
import { ShardUnavailable, type ShardSet } from './shard-set.js';
import { hasBody, readBody } from './body.js';
import { readUpload } from './upload.js';
import { callsAdminWithConsoleSession, SESSION_CHECK_PATH, useAdminToken } from './console-auth.js';
import { clusterView } from './views.js';
import { relayAnswer } from './relay.js';

export interface FrontOptions {
  shards: ShardSet;
  /** GATEWAY_SHARD_SLOTS: how ids map to shards. */
  slots: number;
  metrics: FrontMetrics;
  logger: Logger;
  /** GATEWAY_BODY_LIMIT_BYTES: the most of a body the front holds to read its company_id. */
  bodyLimitBytes: number;
  /** The most of a multipart upload held while its company_id has not come yet (the file may come first). */
  uploadHoldBytes: number;
  /** Bearer token of GET /metrics (GATEWAY_METRICS_TOKEN, else GATEWAY_ADMIN_TOKEN); null: open. */
  metricsToken: string | null;
  /** Seconds in Retry-After when a shard is down. */
  retryAfterSeconds: number;
  /** GATEWAY_ADMIN_TOKEN: what the front sends the shards for a console session it checked; null: no admin API. */
  adminToken: string | null;
  /** GATEWAY_WORKER_URLS: the workers the pipeline page shows (src/front/worker-probe.ts). */
  workerUrls: readonly string[];
  /** This front's address, as the pipeline page lists it. */
  address: () => string;
}

/** Request headers that belong to one connection, not to the request (RFC 9110 section 7.6.1), and Expect, which the front answers itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

/** Answers a shard gives that mean "not mine" when every shard is asked (a fan-out): not found, no such session, a redirect to a login. */
function notHere(status: number): boolean {
  return status === 404 || status === 401 || (status >= 300 && status < 400);
}

function clientAddress(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}

/** The headers a shard gets: the client's, less the hop-by-hop ones, plus the X-Forwarded-* ones. */
export function upstreamHeaders(
  req: IncomingMessage,
  body: Buffer | Readable | null,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  const forwarded = req.headers['x-forwarded-for'];
  const address = clientAddress(req);
  headers['x-forwarded-for'] =
    forwarded === undefined ? address : `${Array.isArray(forwarded) ? forwarded.join(', ') : forwarded}, ${address}`;
  // A load balancer in front of the front says which protocol the client used; else the front's own.
  headers['x-forwarded-proto'] ??= (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
  if (req.headers.host !== undefined) headers['x-forwarded-host'] ??= req.headers.host;
  if (Buffer.isBuffer(body)) {
    // Held whole: its exact length, whether the client sent it chunked or not.
    headers['content-length'] = String(body.length);
  } else if (body === null) {
    delete headers['content-length'];
  }
  return headers;
}

/** Response headers the front does not pass on: its own connection's. */
const RESPONSE_HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'trailer',
  'upgrade',
]);

function downstreamHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !RESPONSE_HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

export class Front {
  private turn = 0;
  private readonly metricsDigest: Buffer | null;

  constructor(private readonly options: FrontOptions) {
    this.metricsDigest = options.metricsToken === null ? null : secretDigest(options.metricsToken);
  }

  /** The request listener of the front's HTTP server. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    void this.handle(req, res);
  };

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const pathname = mark < 0 ? url : url.slice(0, mark);
    const querystring = mark < 0 ? '' : url.slice(mark + 1);
    const route = routeOf(req.method ?? 'GET', pathname);
    try {
      if (
        this.options.adminToken !== null &&
        callsAdminWithConsoleSession(pathname, req.headers) &&
        !(await this.vouchForConsoleSession(req, res, this.options.adminToken))
      )
        return;
      await this.serve(route, req, res, querystring);
    } catch (error) {
      this.answerError(req, res, error);
    }
  }

  private async serve(route: Route, req: IncomingMessage, res: ServerResponse, querystring: string): Promise<void> {
    const { shards, slots } = this.options;
    switch (route.kind) {
      case 'healthz':
        return this.healthz(res);
      case 'metrics':
        return this.metricsAnswer(req, res);
      case 'id':
        return this.forward(
          shardOfRoute(route.id, slots, shards.count) ?? this.anyLive(),
          req,
          res,
          hasBody(req) ? req : null,
          route.kind,
        );
      case 'any':
        return this.forward(this.anyLive(), req, res, hasBody(req) ? req : null, route.kind);
      case 'home':
        return this.forward(this.anyLive(), req, res, hasBody(req) ? req : null, route.kind);
      case 'input': {
        const body = await readBody(req, this.options.bodyLimitBytes);
        const company = companyOfInput(req.method ?? 'GET', querystring, body, req.headers['content-type']);
        if (company === undefined && route.required !== undefined)
          throw ValidationFailed.field('company_id', `company_id is required: ${route.required}`);
        return this.forward(this.shardOfCompany(company), req, res, body, route.kind);
      }
      case 'upload': {
        const upload = await readUpload(req, this.options.bodyLimitBytes, this.options.uploadHoldBytes);
        return this.forward(this.shardOfCompany(upload.company), req, res, upload.body, route.kind);
      }
      case 'create':
        return this.create(req, res);
      case 'first':
        return this.first(req, res);
      case 'view': {
        const merged = await clusterView(route.view, {
          shards,
          ask: async (shard) => {
            const response = await shards.request(
              shard,
              { method: 'GET', path: req.url ?? '/', headers: upstreamHeaders(req, null) },
              route.kind,
            );
            return { shard, status: response.statusCode, headers: response.headers, text: await response.body.text() };
          },
          workerUrls: this.options.workerUrls,
          frontAddress: this.options.address(),
          healthTimeoutMs: 2_000,
        });
        return this.answerMerged(res, merged);
      }
      case 'list': {
        // A delivery search of one company is that company's shard's own list.
        if (route.list === 'deliveries') {
          const company = companyOfQuery(querystring);
          if (company !== undefined && company !== null)
            return this.forward(this.shardOfCompany(company), req, res, hasBody(req) ? req : null, route.kind);
        }
        return this.list(route.list, req, res, querystring);
      }
    }
  }

  /** The shard of a company id from a request's input; any live shard (which answers the contract's error) for none. */
  private shardOfCompany(company: number | null | undefined): number {
    if (company === null || company === undefined) return this.anyLive();
    return shardOfRoute(company, this.options.slots, this.options.shards.count) ?? this.anyLive();
  }

  /** The lowest-numbered live shard: any shard answers a request that is no shard's own the same way. */
  private anyLive(): number {
    const live = this.options.shards.live();
    if (live.length === 0) throw new ShardUnavailable(0);
    return live[0]!;
  }

  private async forward(
    shard: number,
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer | Readable | null,
    route: string,
  ): Promise<void> {
    const response = await this.options.shards.request(
      shard,
      {
        method: req.method as Dispatcher.HttpMethod,
        path: req.url ?? '/',
        headers: upstreamHeaders(req, body),
        body: body ?? undefined,
      },
      route,
    );
    await this.send(res, response);
  }

  private async send(res: ServerResponse, response: Dispatcher.ResponseData): Promise<void> {
    await relayAnswer(res, response.statusCode, downstreamHeaders(response.headers), response.body);
  }

  /**
   * The console's call to the admin API (src/front/console-auth.ts): the home shard checks the
   * session (with the request's method, so an unsafe one needs its CSRF token); when it answers 204
   * the request goes on with the admin token in place of the session and this answers true, else its
   * 401 or 403 is the answer. The check has no body: the request's body stays unread until sent on.
   */
  private async vouchForConsoleSession(
    req: IncomingMessage,
    res: ServerResponse,
    adminToken: string,
  ): Promise<boolean> {
    const check = await this.options.shards.request(
      this.anyLive(),
      { method: req.method as Dispatcher.HttpMethod, path: SESSION_CHECK_PATH, headers: upstreamHeaders(req, null) },
      'session',
    );
    if (check.statusCode !== 204) {
      await this.send(res, check);
      return false;
    }
    await check.body.dump();
    useAdminToken(req.headers, adminToken);
    return true;
  }

  /** POST /p1/companies: the next live shard in turn; one that cannot be reached created nothing, so the next is tried. */
  private async create(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req, this.options.bodyLimitBytes);
    for (;;) {
      const live = this.options.shards.live();
      if (live.length === 0) throw new ShardUnavailable(0);
      const shard = live[this.turn++ % live.length]!;
      try {
        return await this.forward(shard, req, res, body, 'create');
      } catch (error) {
        if (!(error instanceof ShardUnavailable)) throw error;
      }
    }
  }

  /** Asks every live shard; answers the first in shard order that is not "not here", else the lowest shard's answer. */
  private async first(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { shards } = this.options;
    const body = await readBody(req, this.options.bodyLimitBytes);
    const live = shards.live();
    const settled = await Promise.allSettled(
      live.map((shard) =>
        shards.request(
          shard,
          {
            method: req.method as Dispatcher.HttpMethod,
            path: req.url ?? '/',
            headers: upstreamHeaders(req, body),
            body: hasBody(req) ? body : undefined,
          },
          'first',
        ),
      ),
    );
    const failed = settled.find((s) => s.status === 'rejected' && !(s.reason instanceof ShardUnavailable));
    const answers = settled.map((s) => (s.status === 'fulfilled' ? s.value : null));
    const chosen = answers.find((a) => a !== null && !notHere(a.statusCode)) ?? null;
    const fallback = chosen ?? (shards.down().length === 0 ? (answers.find((a) => a !== null) ?? null) : null);
    for (const answer of answers) if (answer !== null && answer !== fallback) void answer.body.dump();
    if (failed !== undefined && fallback === null) throw (failed as PromiseRejectedResult).reason;
    // The answer may be on a shard that is down: say so rather than "not found".
    if (fallback === null) throw new ShardUnavailable(shards.down()[0] ?? 0);
    await this.send(res, fallback);
  }

  private async list(
    list: Parameters<typeof mergeList>[0],
    req: IncomingMessage,
    res: ServerResponse,
    querystring: string,
  ): Promise<void> {
    const { shards } = this.options;
    const body = await readBody(req, this.options.bodyLimitBytes);
    let json: Record<string, unknown> | null = null;
    if (body.length > 0 && /json/i.test(req.headers['content-type'] ?? '')) {
      try {
        const parsed: unknown = JSON.parse(body.toString('utf8'));
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
          json = parsed as Record<string, unknown>;
      } catch {
        // Not JSON: the shard that gets it refuses it.
      }
    }
    if (body.length > 0 && json === null) return this.forward(this.anyLive(), req, res, body, 'list');
    const pathname = (req.url ?? '/').split('?')[0]!;
    // The merged answer carries the lowest shard's headers (X-Request-Id, Cache-Control) over its own body.
    let first: ShardAnswer | null = null;
    const ask = async (shard: number, input: ListInput): Promise<ShardAnswer> => {
      const payload = input.json === null ? undefined : Buffer.from(JSON.stringify(input.json));
      const response = await shards.request(
        shard,
        {
          method: 'GET',
          path: input.querystring === '' ? pathname : `${pathname}?${input.querystring}`,
          headers: upstreamHeaders(req, payload ?? null),
          body: payload,
        },
        'list',
      );
      const answer = {
        shard,
        status: response.statusCode,
        headers: response.headers,
        text: await response.body.text(),
      };
      if (first === null || shard < first.shard) first = answer;
      return answer;
    };
    const merged = await mergeList(list, shards.count, shards.down(), ask, { querystring, json });
    this.answerMerged(res, merged, (first as ShardAnswer | null)?.headers);
  }

  /** A merged answer: one shard's refusal as it came, or the merged JSON under `shardHeaders` (the lowest shard's). */
  private answerMerged(res: ServerResponse, merged: Merged, shardHeaders?: ShardAnswer['headers']): void {
    if ('answer' in merged) {
      const { status, headers, text } = merged.answer;
      res.writeHead(status, { ...downstreamHeaders(headers), 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
      return;
    }
    const text = JSON.stringify(merged.json);
    const { etag: _etag, 'content-encoding': _encoding, ...headers } = downstreamHeaders(shardHeaders ?? {});
    res.writeHead(200, {
      // Account-wide and admin data: never cached, never sniffed, as every core's own answers.
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
    });
    res.end(text);
  }

  /** 200 when every shard answers its /healthz with 200; 503 naming the shards that do not. */
  private async healthz(res: ServerResponse): Promise<void> {
    const health = await this.options.shards.health(2_000);
    const bad = health.filter((h) => h.status !== 200).map((h) => h.shard);
    const body = {
      status: bad.length === 0 ? 'ok' : 'degraded',
      role: 'front',
      shards: health.map((h) => ({
        shard: h.shard,
        url: h.url,
        status: h.status === 200 ? 'ok' : h.status === null ? 'down' : 'unhealthy',
        http_status: h.status,
      })),
      down_shards: bad,
    };
    this.json(res, bad.length === 0 ? 200 : 503, body);
  }

  private async metricsAnswer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.metricsDigest !== null) {
      const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (!matchesSecretDigest(given, this.metricsDigest))
        throw new Unauthorized('GET /metrics needs Authorization: Bearer with the metrics token.');
    }
    const { contentType, text } = await this.options.metrics.scrape();
    res.writeHead(200, { 'content-type': contentType });
    res.end(text);
  }

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    });
    res.end(text);
  }

  private answerError(req: IncomingMessage, res: ServerResponse, thrown: unknown): void {
    let error: AppError;
    const headers: Record<string, string> = {};
    if (thrown instanceof ShardUnavailable) {
      error = new ServiceUnavailable(
        `Shard ${thrown.shard} of the gateway is unavailable; try again in a few seconds.`,
      );
      headers['retry-after'] = String(this.options.retryAfterSeconds);
    } else if (thrown instanceof AppError) {
      error = thrown;
    } else {
      const requestId = randomUUID();
      this.options.logger.error(
        { err: thrown, request_id: requestId, method: req.method, url: req.url },
        'front: unhandled error',
      );
      error = new InternalError(requestId);
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // A body the front stopped reading is not worth finishing: the connection closes after the answer.
    if (!req.complete) headers.connection = 'close';
    this.json(res, httpStatusOf(error), { errors: errorEntries(error) }, headers);
  }
}
