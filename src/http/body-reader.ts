import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import bourne from '@hapi/bourne';
import { parseFormFields } from './query.js';
import getRawBody from 'raw-body';
import { BadRequest, PayloadTooLarge, UnsupportedMediaType } from '../errors/errors.js';

export type BodyKind = 'json' | 'form';

/** Content codings a JSON or form body may come in. */
const DECODERS: Record<string, (() => zlib.Unzip | zlib.BrotliDecompress) | null> = {
  identity: null,
  gzip: () => zlib.createUnzip(),
  deflate: () => zlib.createUnzip(),
  br: () => zlib.createBrotliDecompress(),
};

/** Only an object or an array is a JSON body (after RFC 8259 whitespace). */
const JSON_BODY = /^[\x20\x09\x0a\x0d]*(\[|\{)/;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a JSON or form body: decoded from its Content-Encoding, at most `limit` bytes once decoded,
 * as strict UTF-8 (bytes that are not UTF-8 are a 400, never replaced by U+FFFD and stored as text
 * nobody sent), then parsed: JSON objects and arrays only, `__proto__` keys refused (bourne); form
 * fields with bracket and dot nesting (qs). An empty body is `{}`. Answers the parsed body and its
 * text.
 */
export async function readBody(
  req: IncomingMessage,
  kind: BodyKind,
  limit: number,
): Promise<{ parsed: unknown; text: string }> {
  const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase() || 'identity';
  const decoder = DECODERS[coding];
  if (decoder === undefined)
    throw new UnsupportedMediaType(
      `Content-Encoding "${coding}" is not supported: send the body as it is, or as gzip, deflate or br.`,
    );
  const length = req.headers['content-length'];
  const source: Readable = decoder === null ? req : req.pipe(decoder());
  const bytes = await readBytes(source, limit, decoder === null && length !== undefined ? Number(length) : undefined);

  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new BadRequest('The request body is not valid UTF-8.');
  }
  if (text === '') return { parsed: {}, text };
  if (kind === 'form') return { parsed: parseFormFields(text), text };
  if (!JSON_BODY.test(text)) throw new BadRequest('The request body is not valid JSON.');
  try {
    return { parsed: bourne.parse(text, { protoAction: 'error' }) as unknown, text };
  } catch {
    throw new BadRequest('The request body is not valid JSON.');
  }
}

async function readBytes(source: Readable, limit: number, length: number | undefined): Promise<Buffer> {
  try {
    return await getRawBody(source, { limit, length });
  } catch (error) {
    const { type, status, errno } = error as { type?: string; status?: number; errno?: unknown };
    if (type === 'entity.too.large') throw new PayloadTooLarge('The request body is larger than the limit.');
    // zlib's and brotli's errors carry a numeric errno (Z_DATA_ERROR, ERR__ERROR_FORMAT_PADDING_2, ...).
    if (status === undefined && typeof errno === 'number')
      throw new BadRequest('The request body could not be decoded as its Content-Encoding says.');
    throw new BadRequest('The request body could not be read.');
  }
}
