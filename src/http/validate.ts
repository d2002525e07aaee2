import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { parseTimestamp } from '../lib/time.js';
import { BadRequest, ValidationFailed, type FieldProblem } from '../errors/errors.js';
import {
  numeralProblems,
  retypedProblems,
  scalarTypes,
  unreadableNumerals,
  schemaWithSafeIntegers,
  textProblems,
} from './input-values.js';

/**
 * Where the input came from decides how strictly types are read: JSON carries real types and is
 * validated as sent; form bodies and query strings carry only text, so "5" and "true" are coerced.
 */
export type InputMode = 'json' | 'text';

function createAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    coerceTypes: coerce,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    verbose: true,
  });
  addFormats(ajv, ['date-time', 'email', 'uri']);
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
  ajv.addFormat('webhook-url', { type: 'string', validate: isWebhookUrl });
  ajv.addFormat('timestamp', { type: 'string', validate: (text: string) => parseTimestamp(text) !== undefined });
  return ajv;
}

// ajv-formats is CommonJS: its callable sits on `default` when imported from ESM.
const addFormats = ((formats as { default?: unknown }).default ?? formats) as typeof formats.default;

const compilers: Record<InputMode, Ajv> = { json: createAjv(false), text: createAjv(true) };

/** An absolute http(s) URL with a host, or the empty string (which clears the address). */
export function isWebhookUrl(text: string): boolean {
  if (text === '') return true;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * `typed`: in text mode, the part of `data` that came as JSON (a GET's JSON body merged over its
 * query), whose values must keep their JSON types while the rest is read as text.
 */
export type Validator<T> = (data: unknown, mode: InputMode, typed?: Record<string, unknown>) => T;

/**
 * Every validator's compilation of both input modes, to compile them all at once: a test does,
 * so that a schema ajv refuses fails the tests instead of its route's first request.
 */
const compilations: (() => void)[] = [];

/** Compiles every validator made so far in both input modes (those compiled already are kept). */
export function compileEveryValidator(): void {
  for (const compileBoth of compilations) compileBoth();
}

/** How many validators were made so far. */
export function validatorCount(): number {
  return compilations.length;
}

/**
 * Returns a function that answers the typed input or throws ValidationFailed with one problem per
 * failing field. The schema is compiled for an input mode on its first use in that mode, not at
 * route registration: compiling every route's schema in both modes was most of a process's start,
 * and a process serves few of them (a core under callbacks alone, a test daemon). Besides
 * the schema, every value keeps the rules of src/http/input-values.ts: text is Unicode text,
 * numbers read from text are decimal numerals, integers are safe integers. Input arrives already
 * bounded in depth by its parser (GATEWAY_JSON_MAX_DEPTH, the query's bracket depth).
 */
export function validator<const S extends JSONSchema, T = FromSchema<S>>(schema: S): Validator<T> {
  const safe = schemaWithSafeIntegers(schema);
  const compiled: Partial<Record<InputMode, ValidateFunction>> = {};
  const compiledFor = (mode: InputMode) => (compiled[mode] ??= compile(compilers[mode], safe));
  compilations.push(() => {
    compiledFor('json');
    compiledFor('text');
  });
  return (data, mode, typed) => {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new BadRequest('The request body must be a JSON object or form fields.');
    }
    const notText = textProblems(data);
    const numerals = mode === 'text' ? unreadableNumerals(data) : [];
    const jsonTypes = typed === undefined ? [] : scalarTypes(typed);
    const validate = compiledFor(mode);
    const valid = validate(data);
    if (valid && notText.length === 0 && numerals.length === 0 && jsonTypes.length === 0) return data as T;
    const problems = mergeProblems(
      notText,
      valid ? [] : toProblems(validate.errors ?? []),
      numeralProblems(numerals, data),
      retypedProblems(jsonTypes, data),
    );
    if (problems.length > 0) throw new ValidationFailed(problems);
    return data as T;
  };
}

/** One problem per field, the first found winning: the rules of input-values.ts before the schema's. */
function mergeProblems(...lists: FieldProblem[][]): FieldProblem[] {
  const byField = new Map<string, FieldProblem>();
  for (const problem of lists.flat()) if (!byField.has(problem.field)) byField.set(problem.field, problem);
  return [...byField.values()];
}

/**
 * Whether JSON `text` holds more than `limit` opening brackets (inside strings too): a text with
 * fewer cannot nest deeper than `limit`, and counting them costs less than walking the parsed value
 * (nestedDeeperThan), which only texts with more need.
 */
export function mayNestDeeperThan(text: string, limit: number): boolean {
  let brackets = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code === 0x7b || code === 0x5b) && ++brackets > limit) return true;
  }
  return false;
}

/**
 * Whether the value nests deeper than `limit` objects and arrays: such input is refused by its
 * parser before anything walks it recursively (validation, JSON.stringify when stored), which
 * would otherwise exhaust the stack on a body well under the size limit (GATEWAY_JSON_MAX_DEPTH).
 * Iterative, so that the check itself cannot overflow the stack. Only objects and arrays are
 * stacked (most values are leaves), depths beside them: no pair is allocated per value, and every
 * callback and request body goes through this.
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: object[] = [value];
  const depths: number[] = [0];
  while (pending.length > 0) {
    const current = pending.pop()!;
    const depth = depths.pop()!;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) {
      if (typeof child === 'object' && child !== null) {
        pending.push(child as object);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

function compile(ajv: Ajv, schema: JSONSchema): ValidateFunction {
  const id = typeof schema === 'object' ? schema.$id : undefined;
  return (id !== undefined ? ajv.getSchema(id) : undefined) ?? ajv.compile(schema as object);
}

/** Turns ajv errors into one problem per field, in a sentence that names the field. */
export function toProblems(errors: ErrorObject[]): FieldProblem[] {
  const byField = new Map<string, string>();
  for (const error of errors) {
    if (error.keyword === 'if') continue; // the failing "then" branch reports the field itself
    const field =
      error.keyword === 'required'
        ? joinPointer(error.instancePath, (error.params as { missingProperty: string }).missingProperty)
        : error.instancePath.slice(1);
    if (!byField.has(field)) byField.set(field, describe(field, error));
  }
  return [...byField].map(([field, detail]) => ({ field, detail }));
}

function joinPointer(base: string, property: string): string {
  return `${base.slice(1)}${base === '' ? '' : '/'}${property}`;
}

function describe(field: string, error: ErrorObject): string {
  const name = field === '' ? 'The body' : field.split('/').join('.');
  const custom = (error.parentSchema as { 'x-message'?: string } | undefined)?.['x-message'];
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${name} is required`;
    case 'type':
      return `${name} must be ${article(String(params.type).replace(',', ' or '))}`;
    case 'maxLength':
      return `${name} must be at most ${String(params.limit)} characters`;
    case 'minLength':
      return params.limit === 1
        ? `${name} must not be empty`
        : `${name} must be at least ${String(params.limit)} characters`;
    case 'minimum':
    case 'maximum':
      return `${name} must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(params.limit)}`;
    case 'enum':
      return `${name} must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `${name} ${custom ?? `must be ${JSON.stringify(params.allowedValue)}`}`;
    default:
      return `${name} ${custom ?? error.message ?? 'is invalid'}`;
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
