import { TOKEN_FIELD } from './authenticate.js';
import type { AppContext } from './context.js';
import { parseQuery } from './query.js';
import type { InputMode, Validator } from './validate.js';

const QUERY_METHODS = new Set(['GET', 'HEAD', 'DELETE']);

/**
 * The parameters of a request and how to read their types: the body for POST/PUT/PATCH; the query
 * string for GET and DELETE, with a JSON body merged over it (the contract's samples send GET
 * parameters as JSON). Query strings are parsed with bracket nesting, like form bodies.
 */
export function requestInput(ctx: AppContext): { data: unknown; mode: InputMode } {
  const body = ctx.request.body;
  const mode: InputMode = ctx.request.is('json') ? 'json' : 'text';
  if (!QUERY_METHODS.has(ctx.method)) return { data: body ?? {}, mode };

  const query = parseQuery(ctx.querystring);
  delete query[TOKEN_FIELD];
  const jsonBody = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
  return { data: { ...query, ...jsonBody }, mode: 'text' };
}

/** Validates the request's parameters against a compiled schema; throws ValidationFailed. */
export function readInput<T>(ctx: AppContext, validate: Validator<T>): T {
  const { data, mode } = requestInput(ctx);
  return validate(data, mode);
}
