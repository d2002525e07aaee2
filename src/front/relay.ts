/** Sending a shard's answer on to the client as it comes. */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * Writes the shard's status and headers, then its body chunk by chunk with backpressure. A shard
 * that breaks off mid-answer cuts the client's connection (nothing more can be said on it); a
 * client that goes away stops the shard's body, which frees that connection. Resolves once the
 * answer was sent or cut off.
 *
 * A plain pipe() and two listeners rather than stream.pipeline: pipeline makes an AbortController
 * for every call and aborts it at the end, which builds a DOMException with its stack trace, about
 * a tenth of the front's CPU per proxied callback.
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
