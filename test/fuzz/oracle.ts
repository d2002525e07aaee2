import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import qs from 'qs';
import { RawJson, TextValue, type Schema } from './bad-values.js';

/**
 * Judges, independently of the gateway's code, whether an input breaks what the contract publishes:
 * the operation's schema in /openapi.json plus the input rules of docs/decisions.md ("Request
 * bodies"): text holds no NUL or unpaired surrogate, numbers read from text are decimal numerals,
 * integers are safe integers, JSON nests at most GATEWAY_JSON_MAX_DEPTH, queries are validly
 * percent-encoded UTF-8. An input the oracle calls broken must be refused with a 4xx.
 */

const strictAjv = new Ajv({ strict: false, allErrors: false, allowUnionTypes: true });
const coercingAjv = new Ajv({ strict: false, allErrors: false, allowUnionTypes: true, coerceTypes: true });
for (const ajv of [strictAjv, coercingAjv]) {
  ((formats as { default?: unknown }).default as typeof formats.default)(ajv, ['date-time', 'email', 'uri']);
  // The gateway's own formats: taken as anything here, so the oracle never calls a valid input broken.
  ajv.addFormat('webhook-url', true);
  ajv.addFormat('timestamp', true);
}

/**
 * The schema as the oracle reads it: `oneOf` as `anyOf` (an input valid in two variants is valid to
 * the gateway, which picks the variant by provider), integers bounded to the safe integers, and
 * without `$id`s (schemas are combined here), OpenAPI's `discriminator` and the `x-` extensions.
 */
function forOracle(schema: Schema): Schema {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) => {
    if (key === 'discriminator' || key === '$id' || key.startsWith('x-')) return undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const node = { ...(value as Schema) };
    if (node.oneOf !== undefined) {
      node.anyOf = node.oneOf;
      delete node.oneOf;
    }
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes('integer')) {
      node.maximum = Math.min(Number(node.maximum ?? Infinity), Number.MAX_SAFE_INTEGER);
      node.minimum = Math.max(Number(node.minimum ?? -Infinity), Number.MIN_SAFE_INTEGER);
    }
    return node;
  }) as Schema;
}

const compiled = new Map<string, { json: ValidateFunction; text: ValidateFunction }>();
function validatorsOf(schema: Schema): { json: ValidateFunction; text: ValidateFunction } {
  const key = JSON.stringify(schema);
  let found = compiled.get(key);
  if (found === undefined) {
    const oracle = forOracle(schema);
    found = { json: strictAjv.compile(oracle), text: coercingAjv.compile(structuredClone(oracle)) };
    compiled.set(key, found);
  }
  return found;
}

const NOT_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

function strings(
  value: unknown,
  path: (string | number)[] = [],
  found: { path: (string | number)[]; text: string }[] = [],
) {
  if (typeof value === 'string') found.push({ path, text: value });
  else if (Array.isArray(value)) value.forEach((item, i) => strings(item, [...path, i], found));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) strings(v, [...path, k], found);
  return found;
}

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

/** Whether a JSON body (its exact text) breaks the schema or the input rules. */
export function jsonBreaks(schema: Schema, text: string, maxDepth: number): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return true;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return true;
  if (depthOf(value) > maxDepth) return true;
  if (strings(value).some((s) => NOT_TEXT.test(s.text))) return true;
  return !validatorsOf(schema).json(value);
}

/** Whether query or form text breaks the schema or the input rules (`form`: parsed as form bodies are). */
export function textBreaks(schema: Schema, text: string, form: boolean): boolean {
  try {
    decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return true;
  }
  let value: Record<string, unknown>;
  try {
    value = form
      ? qs.parse(text, { allowDots: true })
      : qs.parse(text, {
          depth: 5,
          arrayLimit: 100,
          parameterLimit: 1000,
          strictDepth: true,
          throwOnLimitExceeded: true,
        });
  } catch {
    return true;
  }
  delete value.private_api_token;
  const before = strings(value);
  if (before.some((s) => NOT_TEXT.test(s.text))) return true;
  const copy = structuredClone(value);
  if (!validatorsOf(schema).text(copy)) return true;
  return before.some((s) => !DECIMAL.test(s.text) && typeof at(copy, s.path) === 'number');
}

function at(value: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>(
    (current, key) =>
      typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[key] : undefined,
    value,
  );
}

/** JSON text of a value in which RawJson parts stand as written. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Percent-encoding of text as UTF-8 (unpaired surrogates become U+FFFD, as any UTF-8 encoder does). */
function encode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Query or form text of an input: brackets for nesting, TextValue parts as given. */
export function formText(input: Record<string, unknown>): string {
  const pairs: string[] = [];
  const add = (key: string, value: unknown): void => {
    if (value instanceof TextValue) pairs.push(`${key}=${value.encoded ? value.text : encode(value.text)}`);
    else if (value instanceof RawJson) pairs.push(`${key}=${encode(value.text)}`);
    else if (Array.isArray(value)) value.forEach((item) => add(`${key}%5B%5D`, item));
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) add(`${key}%5B${encode(k)}%5D`, v);
    else pairs.push(`${key}=${encode(value === null ? '' : String(value))}`);
  };
  for (const [name, value] of Object.entries(input)) add(encode(name), value);
  return pairs.join('&');
}
