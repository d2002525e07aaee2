/** Sending a shard's answer on to the client as it comes. */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { downstreamHeaders } from './forwarded-headers.js';
import type { ShardSet } from './shard-set.js';

/**
 * Sends a request to a shard and writes its answer straight into the client's response as it
 * comes (ShardSet.stream), chunk by chunk with backpressure. A shard that breaks off mid-answer
 * cuts the client's connection (nothing more can be said on it); a client that goes away stops the
 * shard's answer, which frees that connection. Before the head went out, a failure is thrown, to be
 * answered in the contract's shape (503 for a shard that cannot be reached).
 */
export async function relayExchange(
  shards: ShardSet,
  shard: number,
  options: Omit<Dispatcher.RequestOptions, 'origin'>,
  route: string,
  longLived: boolean,
  res: ServerResponse,
): Promise<void> {
  try {
    await shards.stream(shard, options, route, longLived, ({ statusCode, headers }) => {
      res.writeHead(statusCode, downstreamHeaders(headers));
      return res;
    });
  } catch (error) {
    if (!res.headersSent) throw error;
    res.destroy();
  }
}

/**
 * Writes an answer the front already holds the head of (a session check's, or the one a fan-out
 * chose), then its body with backpressure, with relayExchange's behaviour when either side breaks
 * off. Resolves once the answer was sent or cut off.
 *
 * A plain pipe() and two listeners rather than stream.pipeline: pipeline makes an AbortController
 * for every call and aborts it at the end, which builds a DOMException with its stack trace.
 */
export function relayAnswer(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  body: Readable,
): Promise<void> {
  res.writeHead(status, headers);
  return new Promise((resolve) => {
    body.once('error', () => res.destroy());
    res.once('error', () => body.destroy());
    res.once('close', () => {
      if (!res.writableFinished) body.destroy();
      resolve();
    });
    body.pipe(res);
  });
}
