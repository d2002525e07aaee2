/**
 * Payload filters of webhook endpoints (schemas/objects/endpoint-filter.ts): which events an
 * endpoint gets by their content. Checked at fan-out, so an event that does not match is never
 * queued for the endpoint.
 */
import type { EndpointFilter, FilterValue } from '../../schemas/objects/endpoint-filter.js';

export type { EndpointFilter };

/** Whether the envelope `{event, type, object}` matches the filter. */
export function matchesFilter(filter: EndpointFilter, envelope: unknown): boolean {
  if ('and' in filter) return filter.and.every((part) => matchesFilter(part, envelope));
  if ('or' in filter) return filter.or.some((part) => matchesFilter(part, envelope));
  const found = readPath(envelope, filter.path);
  switch (filter.op) {
    case 'exists':
      return found.present === (filter.value ?? true);
    case 'eq':
      return found.present && found.value === filter.value;
    case 'ne':
      // An absent field is not equal to the value: `ne` matches it.
      return !found.present || found.value !== filter.value;
    case 'in':
      return found.present && (filter.value as FilterValue[]).some((candidate) => candidate === found.value);
    default:
      return found.present && compares(filter.op, found.value, filter.value as number | string);
  }
}

/** gt/gte/lt/lte: numbers with numbers, strings with strings (ISO times compare as text); any other pair does not match. */
function compares(op: 'gt' | 'gte' | 'lt' | 'lte', actual: unknown, expected: number | string): boolean {
  if (typeof actual !== typeof expected || (typeof actual !== 'number' && typeof actual !== 'string')) return false;
  switch (op) {
    case 'gt':
      return actual > expected;
    case 'gte':
      return actual >= expected;
    case 'lt':
      return actual < expected;
    case 'lte':
      return actual <= expected;
  }
}

/** The value at a dotted path: object keys (own ones only) and array indexes. */
function readPath(root: unknown, path: string): { present: true; value: unknown } | { present: false } {
  let current = root;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return { present: false };
    current = (current as Record<string, unknown>)[key];
  }
  return { present: true, value: current };
}

/** The stored filter of an endpoint (JSON text, or null for none), parsed once per text. */
export function parseFilter(text: string | null): EndpointFilter | null {
  if (text === null) return null;
  let filter = parsed.get(text);
  if (filter === undefined) {
    filter = JSON.parse(text) as EndpointFilter;
    if (parsed.size >= MAX_PARSED) parsed.delete(parsed.keys().next().value!);
    parsed.set(text, filter);
  }
  return filter;
}

const parsed = new Map<string, EndpointFilter>();
const MAX_PARSED = 1024;
