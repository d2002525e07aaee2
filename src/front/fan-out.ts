/**
 * The front's requests that no id routes: asked of every live shard at once. A request for
 * something one shard holds takes the first answer that is not "not here"; an account-wide list is
 * merged from every shard's pages (src/front/merge.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { answerMerged } from './front-answers.js';
import { downstreamHeaders, upstreamHeaders } from './forwarded-headers.js';
import { hasBody } from './body.js';
import { mergeList, type ListInput, type ShardAnswer } from './merge.js';
import { relayAnswer } from './relay.js';
import { notHere, type MergedList } from './routing.js';
import { ShardUnavailable, type ShardSet } from './shard-set.js';

/**
 * Asks every live shard; answers the first in shard order that is not "not here", else a 404 (a
 * shard that knows the caller, a portal session's, looked and found nothing), else the lowest
 * shard's answer.
 */
export async function answerFirst(
  shards: ShardSet,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  longLived: boolean,
): Promise<void> {
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
  await relayAnswer(res, fallback.statusCode, downstreamHeaders(fallback.headers), fallback.body);
}

/** A request body as a JSON object, when it is one (a GET list's filters may come in a JSON body). */
export function jsonObjectOf(body: Buffer, contentType: string | undefined): Record<string, unknown> | null {
  if (body.length === 0 || !/json/i.test(contentType ?? '')) return null;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** An account-wide list: every shard's pages merged in id order with one cursor (src/front/merge.ts). */
export async function answerList(
  shards: ShardSet,
  list: MergedList,
  req: IncomingMessage,
  res: ServerResponse,
  querystring: string,
  json: Record<string, unknown> | null,
): Promise<void> {
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
