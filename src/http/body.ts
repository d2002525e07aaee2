import type { Middleware } from 'koa';
import { readBody } from './body-reader.js';
import type { AppState } from './context.js';
import { isPercentEncodedUtf8 } from './query.js';
import { mayNestDeeperThan, nestedDeeperThan } from './validate.js';
import { BadRequest, RequestTimeout, UnsupportedMediaType } from '../errors/errors.js';
import { withinBodyDeadline } from './body-deadline.js';

export { discardRest } from './body-deadline.js';

declare module 'koa' {
  interface Request {
    /** The parsed JSON or form body (parseBody); `{}` for a request without one. */
    body?: unknown;
  }
}

/**
 * What a body may be: its size (GATEWAY_BODY_LIMIT_BYTES), its nesting (GATEWAY_JSON_MAX_DEPTH) and
 * the time it may take to arrive (GATEWAY_BODY_TIMEOUT; none when not given).
 */
export interface BodyLimits {
  bodyLimitBytes: number;
  jsonMaxDepth: number;
  bodyTimeoutMs?: number;
}

/**
 * Parses JSON and form bodies (form fields with bracket nesting such as `template[id]` become
 * objects and arrays) on every method: GET accepts a JSON body too, as the contract's samples send
 * one. A body of another media type or content coding is refused rather than silently ignored
 * (415); a body that is not what its Content-Encoding says, not UTF-8, malformed (400), too large
 * (413), or JSON nested deeper than the limit (400, before anything walks it) is refused too
 * (src/http/body-reader.ts). A request without a body gets `{}`.
 */
export function parseBody(limits: BodyLimits): Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.request.body !== undefined) return void (await next());
    if (!hasBody(ctx)) {
      ctx.request.body = {};
      return void (await next());
    }
    const kind = ctx.request.is('json') ? 'json' : ctx.request.is('urlencoded') ? 'form' : null;
    if (kind === null) throw new UnsupportedMediaType(`Unsupported content type "${ctx.get('content-type')}".`);
    let read: { parsed: unknown; text: string };
    try {
      read = await withinBodyDeadline(ctx.req, limits.bodyTimeoutMs, readBody(ctx.req, kind, limits.bodyLimitBytes));
    } catch (error) {
      if (error instanceof RequestTimeout) ctx.set('Connection', 'close');
      throw error;
    }
    const { parsed, text } = read;
    // The form parser, like every query parser, keeps a malformed escape (%ZZ) as literal text.
    if (kind === 'form' && !isPercentEncodedUtf8(text))
      throw new BadRequest('The form body is not validly percent-encoded UTF-8.');
    // Form fields nest by dots too: only a JSON text's brackets bound its depth.
    const mayNest = kind === 'form' || mayNestDeeperThan(text, limits.jsonMaxDepth);
    if (mayNest && nestedDeeperThan(parsed, limits.jsonMaxDepth)) {
      throw new BadRequest(`The request body is nested more than ${limits.jsonMaxDepth} levels deep.`);
    }
    ctx.request.body = parsed;
    return void (await next());
  };
}

function hasBody(ctx: { get(name: string): string }): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
}
