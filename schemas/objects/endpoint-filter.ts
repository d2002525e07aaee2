import type { JSONSchema } from 'json-schema-to-ts';

/**
 * A webhook endpoint's payload filter (docs/api.md, "Payload filters"): a condition on one JSON
 * path of the v2 envelope `{event, type, object}`, or `and`/`or` over a list of filters. Nesting
 * is bounded (FILTER_MAX_DEPTH levels of `and`/`or`) so that a filter is cheap to check at fan-out.
 */
export const FILTER_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** A filter as the schema below admits it (written out: the schema is built, and recursive). */
export type EndpointFilter =
  | { and: EndpointFilter[] }
  | { or: EndpointFilter[] }
  | { path: string; op: FilterOp; value?: FilterValue | FilterValue[] };
export type FilterValue = string | number | boolean | null;

/** `and`/`or` levels a filter may nest, and filters one `and`/`or` may list. */
export const FILTER_MAX_DEPTH = 3;
export const FILTER_MAX_BRANCHES = 10;
/** Values one `in` may list. */
export const FILTER_MAX_IN_VALUES = 50;

/** `object.status`, `type`, `object.tags.0`: a top-level key of the envelope, then object keys or array indexes. */
export const FILTER_PATH_PATTERN = '^(event|type|object)(\\.[A-Za-z0-9_-]{1,64}){0,8}$';

const scalar = { type: ['string', 'number', 'boolean', 'null'], maxLength: 1000 } as const;

const path = {
  type: 'string',
  pattern: FILTER_PATH_PATTERN,
  'x-message':
    'must be a dotted path into the envelope starting with event, type or object (object.status, object.tags.0)',
};
const op = { type: 'string', enum: [...FILTER_OPS] };

/** What `value` must be for each operator. */
const valueRules = [
  {
    if: { required: ['op'], properties: { op: { enum: ['eq', 'ne'] } } },
    then: { required: ['value'], properties: { value: scalar } },
  },
  {
    if: { required: ['op'], properties: { op: { enum: ['gt', 'gte', 'lt', 'lte'] } } },
    then: {
      required: ['value'],
      properties: {
        value: {
          type: ['number', 'string'],
          maxLength: 1000,
          'x-message': 'must be a number or a string to compare with',
        },
      },
    },
  },
  {
    if: { required: ['op'], properties: { op: { const: 'in' } } },
    then: {
      required: ['value'],
      properties: {
        value: {
          type: 'array',
          items: scalar,
          minItems: 1,
          maxItems: FILTER_MAX_IN_VALUES,
          'x-message': `must be a list of 1 to ${FILTER_MAX_IN_VALUES} strings, numbers, booleans or nulls`,
        },
      },
    },
  },
  {
    if: { required: ['op'], properties: { op: { const: 'exists' } } },
    then: { properties: { value: { type: 'boolean', 'x-message': 'must be true (present) or false (absent)' } } },
  },
];

function filterNode(depth: number): Record<string, unknown> {
  const list =
    depth === 0
      ? { not: {}, 'x-message': `nests too deep: at most ${FILTER_MAX_DEPTH} levels of and/or` }
      : { type: 'array', items: filterNode(depth - 1), minItems: 1, maxItems: FILTER_MAX_BRANCHES };
  return {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    'x-message': 'must be a condition {path, op, value} or {and: [filters]} or {or: [filters]}',
    properties: { path, op, value: {}, and: list, or: list },
    allOf: [
      {
        if: { required: ['and'], properties: { and: true } },
        then: { maxProperties: 1, 'x-message': 'must hold "and" alone' },
      },
      {
        if: { required: ['or'], properties: { or: true } },
        then: { maxProperties: 1, 'x-message': 'must hold "or" alone' },
      },
      {
        if: {
          not: {
            anyOf: [
              { required: ['and'], properties: { and: true } },
              { required: ['or'], properties: { or: true } },
            ],
          },
        },
        then: { required: ['path', 'op'], properties: { path: true, op: true } },
      },
      ...valueRules,
    ],
  };
}

/**
 * The filter as requests send it and answers show it; null (on an update) removes it. Typed as a
 * plain JSON Schema: its type is EndpointFilter (src/domain/endpoint-filter.ts).
 */
export const endpointFilter: JSONSchema = {
  ...filterNode(FILTER_MAX_DEPTH),
  type: ['object', 'null'],
};

/** The filter as answers show it (validated when it was saved), without the request's error wording. */
export const endpointFilterObject: JSONSchema = JSON.parse(
  JSON.stringify(filterNode(FILTER_MAX_DEPTH)),
  (key, value) => (key === 'x-message' ? undefined : (value as unknown)),
) as JSONSchema;
