import qs from 'qs';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';
import { BadRequest, UriTooLong } from '../errors/errors.js';

/**
 * The query string of every request, before any route reads it: at most `maxBytes` as sent
 * (GATEWAY_QUERY_MAX_BYTES, 414 beyond) and validly percent-encoded UTF-8 (400 otherwise). Both
 * parsers behind the routes (qs and Koa's `ctx.query`) keep a malformed escape such as `%ZZ` or
 * `%ED%A0%80` as literal text, which would be read as a value nobody sent.
 */
export function checkQuery(maxBytes: number): Middleware<AppState> {
  return (ctx, next) => {
    const query = ctx.querystring;
    if (query.length > maxBytes) throw new UriTooLong(`The query string is longer than ${maxBytes} bytes.`);
    if (!isPercentEncodedUtf8(query)) {
      throw new BadRequest('The query string is not validly percent-encoded UTF-8.');
    }
    return next();
  };
}

/** Whether `a=b&c=d` text (a query string, a form body) decodes as UTF-8 with nothing left undecoded. */
export function isPercentEncodedUtf8(text: string): boolean {
  if (!text.includes('%')) return true;
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** Bracket nesting of query parameters (`sort[position]=asc`, `company_ids[]=1`) and how far it goes. */
const QUERY_SHAPE = {
  depth: 5,
  arrayLimit: 100,
  parameterLimit: 1_000,
  strictDepth: true,
  throwOnLimitExceeded: true,
} as const;

/**
 * The query string as nested parameters. Deeper nesting, longer arrays or more parameters than
 * QUERY_SHAPE allows are a 400, not silently cut (qs's default).
 */
export function parseQuery(query: string): Record<string, unknown> {
  return parseNested(query, 'query string', {});
}

/** A form-encoded body as nested fields (`template[id]`, `template.id`), held to the same shape as a query. */
export function parseFormFields(body: string): Record<string, unknown> {
  return parseNested(body, 'form body', { allowDots: true });
}

function parseNested(text: string, what: string, options: { allowDots?: boolean }): Record<string, unknown> {
  try {
    return qs.parse(text, { ...QUERY_SHAPE, ...options });
  } catch (error) {
    if (error instanceof RangeError) {
      throw new BadRequest(
        `The ${what} has more than ${QUERY_SHAPE.parameterLimit} parameters, an array of more than ${QUERY_SHAPE.arrayLimit} items or brackets nested more than ${QUERY_SHAPE.depth} deep.`,
      );
    }
    throw error;
  }
}
