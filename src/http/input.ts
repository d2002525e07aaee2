import { TOKEN_FIELD } from './authenticate.js';
import type { AppContext } from './context.js';
import { parseQuery } from './query.js';
import { BadRequest } from '../errors/errors.js';
import type { InputMode, Validator } from './validate.js';

const QUERY_METHODS = new Set(['GET', 'HEAD', 'DELETE']);

/**
 * The parameters of a request and how to read their types: the body for POST/PUT/PATCH; the query
 * string for GET and DELETE, with a JSON body merged over it (the contract's samples send GET
 * parameters as JSON). Query strings are parsed with bracket nesting, like form bodies. The merged
 * input is read as text; `typed` is its JSON part, whose values keep their JSON types.
 */
export function requestInput(ctx: AppContext): { data: unknown; mode: InputMode; typed?: Record<string, unknown> } {
  const body = ctx.request.body;
  const json = Boolean(ctx.request.is('json'));
  if (!QUERY_METHODS.has(ctx.method)) return { data: body ?? {}, mode: json ? 'json' : 'text' };

  const query = parseQuery(ctx.querystring);
  delete query[TOKEN_FIELD];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    if (body !== undefined) throw new BadRequest('The request body must be a JSON object or form fields.');
    return { data: query, mode: 'text' };
  }
  return { data: { ...query, ...body }, mode: 'text', ...(json ? { typed: body as Record<string, unknown> } : {}) };
}

/** Validates the request's parameters against a compiled schema; throws ValidationFailed. */
export function readInput<T>(ctx: AppContext, validate: Validator<T>): T {
  const { data, mode, typed } = requestInput(ctx);
  return validate(data, mode, typed);
}
