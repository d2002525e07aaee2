/**
 * The `company_id` of a request's input, read the way the cores read input (src/http/input.ts):
 * the body for POST/PUT/PATCH; for GET/HEAD/DELETE the query string with a JSON or form body merged
 * over it. The front only routes by it: a missing or malformed value goes to any live shard, whose
 * validation answers it exactly as a single daemon would.
 */
import { parseFormFields, parseQuery } from '../http/query.js';
import { BadRequest } from '../errors/errors.js';

const QUERY_METHODS = new Set(['GET', 'HEAD', 'DELETE']);

/** Whether the method's input comes from the query string (with a body merged over it). */
export function readsQuery(method: string): boolean {
  return QUERY_METHODS.has(method.toUpperCase());
}

/** A company id as a value of the input: an integer, or its decimal text (form fields, query strings). */
export function companyIdOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 1 ? value : null;
  if (typeof value === 'string' && /^[0-9]{1,16}$/.test(value)) return companyIdOf(Number(value));
  return null;
}

/** `company_id` of the query string, or undefined when it has none (a malformed one is null). */
export function companyOfQuery(querystring: string): number | null | undefined {
  if (querystring === '') return undefined;
  const query = parseQuery(querystring);
  return 'company_id' in query ? companyIdOf(query.company_id) : undefined;
}

/**
 * `company_id` of a buffered body by its content type, undefined when the body has none (or is no
 * JSON object or form), null when it has a malformed one. Bodies that do not parse are left to the
 * shard to refuse.
 */
export function companyOfBody(body: Buffer, contentType: string | undefined): number | null | undefined {
  if (body.length === 0) return undefined;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  let fields: unknown;
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      fields = JSON.parse(body.toString('utf8'));
    } catch {
      return undefined;
    }
  } else if (type === 'application/x-www-form-urlencoded') {
    try {
      fields = parseFormFields(body.toString('utf8'));
    } catch (error) {
      if (error instanceof BadRequest) return undefined;
      throw error;
    }
  } else {
    return undefined;
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields) || !('company_id' in fields))
    return undefined;
  return companyIdOf(fields.company_id);
}

/**
 * The company of a request's input by the cores' rules: for POST/PUT/PATCH the body's; for
 * GET/HEAD/DELETE the body's when it has one, else the query's.
 */
export function companyOfInput(
  method: string,
  querystring: string,
  body: Buffer,
  contentType: string | undefined,
): number | null | undefined {
  const fromBody = companyOfBody(body, contentType);
  if (!readsQuery(method) || fromBody !== undefined) return fromBody;
  return companyOfQuery(querystring);
}
