import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { discardRest, withinBodyDeadline } from './body-deadline.js';
import { AppError, BadRequest, PayloadTooLarge, UnsupportedMediaType } from '../errors/errors.js';

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
 * verified over exactly what the provider sent. Too large: 413, after reading and dropping the rest
 * for a while so that the sender gets to read the answer.
 */
export async function readRawBody(req: IncomingMessage, limit: number, timeoutMs?: number): Promise<Buffer> {
  requireIdentityEncoding(req, 'A callback');
  const length = req.headers['content-length'];
  try {
    return await withinBodyDeadline(
      req,
      timeoutMs,
      getRawBody(req, { limit, length: length === undefined ? undefined : Number(length) }),
    );
  } catch (error) {
    if (error instanceof AppError) throw error; // the body's deadline
    const { type } = error as { type?: string };
    if (type === 'entity.too.large') {
      discardRest(req);
      throw new PayloadTooLarge(`The callback body is larger than ${limit} bytes.`);
    }
    throw new BadRequest('The callback body could not be read completely.');
  }
}

/**
 * Bodies taken byte for byte (callbacks, verified over exactly what was sent; uploads, stored as
 * sent) are never decoded: a Content-Encoding other than `identity` is a 415.
 */
export function requireIdentityEncoding(req: IncomingMessage, what: string): void {
  const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    throw new UnsupportedMediaType(`${what} is read as sent: send it without a Content-Encoding (got "${encoding}").`);
  }
}
