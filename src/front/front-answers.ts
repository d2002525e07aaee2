/**
 * The answers the front writes itself rather than relaying a shard's: a merged list or cluster view,
 * its own /healthz and /metrics, and an error in the contract's shape (a shard that cannot be
 * reached is 503 with Retry-After).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { matchesSecretDigest } from '../domain/tokens.js';
import { AppError, InternalError, ServiceUnavailable, Unauthorized } from '../errors/errors.js';
import { errorEntries, httpStatusOf } from '../http/render-errors.js';
import type { Logger } from '../log.js';
import type { FrontMetrics } from './front-metrics.js';
import { downstreamHeaders } from './forwarded-headers.js';
import type { Merged, ShardAnswer } from './merge.js';
import { ShardUnavailable, type ShardSet } from './shard-set.js';

export function answerJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** A merged answer: one shard's refusal as it came, or the merged JSON under `shardHeaders` (the lowest shard's). */
export function answerMerged(res: ServerResponse, merged: Merged, shardHeaders?: ShardAnswer['headers']): void {
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
export async function answerHealth(res: ServerResponse, shards: ShardSet): Promise<void> {
  const health = await shards.health(2_000);
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
  answerJson(res, bad.length === 0 ? 200 : 503, body);
}

/** The front's own metrics, behind the metrics token when one is set (`digest`). */
export async function answerMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  digest: Buffer | null,
  metrics: FrontMetrics,
): Promise<void> {
  if (digest !== null) {
    const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!matchesSecretDigest(given, digest))
      throw new Unauthorized('GET /metrics needs Authorization: Bearer with the metrics token.');
  }
  const { contentType, text } = await metrics.scrape();
  res.writeHead(200, { 'content-type': contentType });
  res.end(text);
}

/** What went wrong, in the contract's error shape; an unexpected error is logged under a request id and answered 500. */
export function answerError(
  req: IncomingMessage,
  res: ServerResponse,
  thrown: unknown,
  context: { retryAfterSeconds: number; logger: Logger },
): void {
  let error: AppError;
  const headers: Record<string, string> = {};
  if (thrown instanceof ShardUnavailable) {
    error = new ServiceUnavailable(`Shard ${thrown.shard} of the gateway is unavailable; try again in a few seconds.`);
    headers['retry-after'] = String(context.retryAfterSeconds);
  } else if (thrown instanceof AppError) {
    error = thrown;
  } else {
    const requestId = randomUUID();
    context.logger.error(
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
  answerJson(res, httpStatusOf(error), { errors: errorEntries(error) }, headers);
}
