import type { IncomingMessage } from 'node:http';
import { discardRest } from '../http/body.js';
import { BadRequest, PayloadTooLarge } from '../http/errors.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body as text, or 400 when it is not valid UTF-8. Checked before any signature: a lenient
 * decoding (U+FFFD for bad bytes) would let a verifier accept bytes other than those it was given.
 * The BOM is kept, so the text encodes back to exactly the bytes received.
 */
export function utf8Body(raw: Buffer): string {
  try {
    return UTF8.decode(raw);
  } catch {
    throw new BadRequest('The callback body is not valid UTF-8.');
  }
}

/**
 * Reads the request body as bytes, at most `limit` of them, without parsing it: callbacks are
 * verified over exactly what the provider sent. Too large (declared or received): 413, after
 * reading and dropping the rest for a while so that the sender gets to read the answer. A body cut
 * short (aborted, an error, closed before its end, fewer bytes than its Content-Length): 400.
 *
 * The checks of the raw-body package, which this replaces on the hot path of every callback (its
 * options, decoder look-up, error objects and callback-to-promise layers cost more than the read).
 */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  const length = declared === undefined ? null : Number(declared);
  if (length !== null && length > limit) return Promise.reject(tooLarge(req, limit));
  if (!req.readable) return Promise.reject(incomplete());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) {
        stop();
        reject(tooLarge(req, limit));
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = (): void => {
      detach();
      if (length !== null && received !== length) reject(incomplete());
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    const onFailure = (): void => {
      stop();
      reject(incomplete());
    };
    const detach = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onFailure);
      req.off('error', onFailure);
      req.off('close', onFailure);
    };
    // As raw-body did: the stream is left paused after a failure (discardRest resumes it for a 413).
    const stop = (): void => {
      detach();
      req.pause();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onFailure);
    req.on('error', onFailure);
    req.on('close', onFailure);
  });
}

function tooLarge(req: IncomingMessage, limit: number): PayloadTooLarge {
  discardRest(req);
  return new PayloadTooLarge(`The callback body is larger than ${limit} bytes.`);
}

function incomplete(): BadRequest {
  return new BadRequest('The callback body could not be read completely.');
}
