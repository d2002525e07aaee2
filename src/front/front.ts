/**
 * The front (`gateway serve --role front`, docs/scaling.md "The front"): every public route,
 * proxied to the core of the shard that owns it over keep-alive connections. It holds no state: the
 * owner is read from the request (src/front/routing.ts), account-wide lists are merged from every
 * shard (src/front/merge.ts), and several fronts can run side by side.
 *
 * It passes on the method, path, query and headers (src/front/forwarded-headers.ts) and the body
 * byte for byte (streamed, or held when the owner is read from it), and answers with the shard's
 * answer as it comes; its own answers (a merged list, 503 for a shard it cannot reach) are
 * src/front/front-answers.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { secretDigest } from '../domain/tokens.js';
import { ValidationFailed } from '../errors/errors.js';
import type { Logger } from '../log.js';
import { companyOfInput, companyOfQuery } from './company-input.js';
import type { FrontMetrics } from './front-metrics.js';
import { mergeList, type ListInput, type ShardAnswer } from './merge.js';
import { isEventStream, notHere, routeOf, shardOfRoute, type Route } from './routing.js';
import { ShardUnavailable, type ShardSet } from './shard-set.js';
import { hasBody, readBody } from './body.js';
import { readUpload } from './upload.js';
import { callsAdminWithConsoleSession, SESSION_CHECK_PATH, useAdminToken } from './console-auth.js';
import { clusterView } from './views.js';
import { relayAnswer } from './relay.js';
import { answerError, answerHealth, answerMerged, answerMetrics } from './front-answers.js';
import { downstreamHeaders, upstreamHeaders } from './forwarded-headers.js';

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
      await this.serve(route, req, res, querystring, isEventStream(req.method ?? 'GET', pathname));
    } catch (error) {
      answerError(req, res, error, this.options);
    }
  }

  private async serve(
    route: Route,
    req: IncomingMessage,
    res: ServerResponse,
    querystring: string,
    longLived: boolean,
  ): Promise<void> {
    const { shards, slots } = this.options;
    switch (route.kind) {
      case 'healthz':
        return answerHealth(res, this.options.shards);
      case 'metrics':
        return answerMetrics(req, res, this.metricsDigest, this.options.metrics);
      case 'id':
        return this.forward(
          shardOfRoute(route.id, slots, shards.count) ?? this.anyLive(),
          req,
          res,
          hasBody(req) ? req : null,
          route.kind,
          longLived,
        );
      case 'any':
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
        return this.first(req, res, longLived);
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
        return answerMerged(res, merged);
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
    longLived = false,
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
      longLived,
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

  /**
   * Asks every live shard; answers the first in shard order that is not "not here", else a 404 (a
   * shard that knows the caller, a portal session's, looked and found nothing), else the lowest
   * shard's answer.
   */
  private async first(req: IncomingMessage, res: ServerResponse, longLived: boolean): Promise<void> {
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
          longLived,
        ),
      ),
    );
    const failed = settled.find((s) => s.status === 'rejected' && !(s.reason instanceof ShardUnavailable));
    const answers = settled.map((s) => (s.status === 'fulfilled' ? s.value : null));
    const chosen = answers.find((a) => a !== null && !notHere(a.statusCode)) ?? null;
    const notFound = answers.find((a) => a !== null && a.statusCode === 404);
    const fallback =
      chosen ?? (shards.down().length === 0 ? (notFound ?? answers.find((a) => a !== null) ?? null) : null);
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
    answerMerged(res, merged, (first as ShardAnswer | null)?.headers);
  }
}
