import type { IncomingMessage } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';
import { isPercentEncodedUtf8 } from './query.js';
import { nestedDeeperThan } from './validate.js';
import { BadRequest, UnsupportedMediaType } from '../errors/errors.js';

const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'GET'];

/** What a body may be: its size (GATEWAY_BODY_LIMIT_BYTES) and its nesting (GATEWAY_JSON_MAX_DEPTH). */
export interface BodyLimits {
  bodyLimitBytes: number;
  jsonMaxDepth: number;
}

/** Content codings the body parser decodes (its inflate step); anything else is a 415. */
const DECODED_ENCODINGS = new Set(['', 'identity', 'gzip', 'deflate', 'br']);

/**
 * Parses JSON and form bodies (form fields with bracket nesting such as `template[id]` become
 * objects and arrays). GET accepts a JSON body too, as the contract's samples send one. A body of
 * another media type or content coding is refused rather than silently ignored; a body that does
 * not decode as its Content-Encoding says (a "gzip" body that is not gzip) is a 400, and so is
 * JSON nested deeper than the limit, before anything walks it recursively.
 */
export function parseBody(limits: BodyLimits): Middleware<AppState> {
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    parsedMethods: BODY_METHODS,
    jsonLimit: limits.bodyLimitBytes,
    formLimit: limits.bodyLimitBytes,
    encoding: 'utf-8',
    onError: (error) => {
      throw decodingError(error);
    },
  });
  const done = async (): Promise<void> => {};
  return async (ctx, next) => {
    if (ctx.request.body !== undefined) return next();
    if (hasBody(ctx)) {
      if (!ctx.request.is('json', 'urlencoded')) throw new UnsupportedMediaType(`Unsupported content type "${ctx.get('content-type')}".`);
      const encoding = ctx.get('content-encoding').trim().toLowerCase();
      if (!DECODED_ENCODINGS.has(encoding)) {
        throw new UnsupportedMediaType(`Content-Encoding "${encoding}" is not supported: send the body as it is, or as gzip, deflate or br.`);
      }
    }
    await parse(ctx, done);
    // The parser answers a request whose client is already gone itself (499), without a body.
    if (ctx.request.body === undefined) return;
    // The form parser, like every query parser, keeps a malformed escape (%ZZ) as literal text.
    if (ctx.request.is('urlencoded') && !isPercentEncodedUtf8(String(ctx.request.rawBody ?? ''))) {
      throw new BadRequest('The form body is not validly percent-encoded UTF-8.');
    }
    if (nestedDeeperThan(ctx.request.body, limits.jsonMaxDepth)) {
      throw new BadRequest(`The request body is nested more than ${limits.jsonMaxDepth} levels deep.`);
    }
    return next();
  };
}

/**
 * The parser's own errors carry an HTTP status (400 bad JSON, 413 too large, 415): the renderer maps
 * those. Errors of the decompression step carry none: the body is not what its Content-Encoding says.
 */
function decodingError(error: unknown): unknown {
  // zlib's and brotli's errors carry a numeric errno (Z_DATA_ERROR, ERR__ERROR_FORMAT_PADDING_2, ...).
  const { status, errno } = error as { status?: unknown; errno?: unknown };
  if (status === undefined && typeof errno === 'number') {
    return new BadRequest('The request body could not be decoded as its Content-Encoding says.');
  }
  return error;
}

function hasBody(ctx: { get(name: string): string }): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
}

/** How long a refused upload may go on being read and dropped before the connection is cut. */
const DISCARD_MS = 10_000;

/**
 * Reads and drops what the client still sends after a refusal (too large, not wanted), so that it
 * gets to read the answer; closing at once would reset the connection under it. A client still
 * sending after a while is cut off.
 */
export function discardRest(req: IncomingMessage): void {
  if (req.complete) return;
  const cutOff = setTimeout(() => req.destroy(), DISCARD_MS).unref();
  req.once('end', () => clearTimeout(cutOff));
  req.once('close', () => clearTimeout(cutOff));
  req.resume();
}
