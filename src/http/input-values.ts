import type { FieldProblem } from '../errors/errors.js';

/**
 * Rules every value of a request or callback keeps, whatever its schema says, checked by the one
 * validator (src/http/validate.ts):
 *
 * - Text is Unicode text: no U+0000 and no unpaired surrogate (`"\ud800"` in JSON). SQLite and
 *   UTF-8 cannot keep an unpaired surrogate (it would be stored as U+FFFD, not as sent), and NUL
 *   ends a string for every C consumer behind the store.
 * - Numbers read from text (query strings, form fields) are finite decimal numerals: `5`, `-2`,
 *   `1.5`. Ajv's coercion reads anything `Number()` reads (`0x10`, `1e3`, ` 7 `, `Infinity`), which
 *   would silently turn a malformed value into another one, and lets an infinite one past the range checks.
 * - Integers are safe integers (schemaWithSafeIntegers): beyond 2^53 - 1 a JSON or text numeral
 *   no longer names the number that was sent.
 */

/** A string leaf of the input, by its path (object keys and array indexes). */
export interface StringLeaf {
  path: (string | number)[];
  value: string;
}

interface Visit {
  value: unknown;
  key: string | number | null;
  parent: Visit | null;
}

/**
 * The string leaves of the input that `keep` selects, iteratively (input depth is bounded by the
 * parsers, not by the stack). Paths are built for the kept leaves only: every callback goes through
 * this, and nearly all of its strings are dropped.
 */
export function stringLeaves(data: unknown, keep: (text: string) => boolean): StringLeaf[] {
  const leaves: StringLeaf[] = [];
  const pending: Visit[] = [{ value: data, key: null, parent: null }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const { value } = visit;
    if (typeof value === 'string') {
      if (keep(value)) leaves.push({ path: pathOf(visit), value });
    } else if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++)
        pending.push({ value: value[index], key: index, parent: visit });
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value))
        pending.push({ value: (value as Record<string, unknown>)[key], key, parent: visit });
    }
  }
  return leaves;
}

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | null = visit; at !== null && at.key !== null; at = at.parent) path.unshift(at.key);
  return path;
}

const NOT_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a string is not Unicode text (it holds NUL or an unpaired surrogate). */
export function isNotText(text: string): boolean {
  return NOT_TEXT.test(text);
}

/** Problems of the strings that are not Unicode text. */
export function textProblems(data: unknown): FieldProblem[] {
  return stringLeaves(data, isNotText).map((leaf) =>
    problem(leaf.path, 'must be text without NUL characters or unpaired surrogates'),
  );
}

const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

/**
 * The strings of text input that a number coercion must not read: anything but a decimal numeral,
 * and numerals too long to be a finite number (Ajv's coercion turns them into Infinity, which then
 * skips every range check). Taken before validation coerces.
 */
export function unreadableNumerals(data: unknown): StringLeaf[] {
  return stringLeaves(data, (text) => !DECIMAL.test(text) || !Number.isFinite(Number(text)));
}

/**
 * Problems of strings the text-mode validation turned into numbers although they are unreadable
 * numerals. `leaves` are unreadableNumerals before validation; `data` is the input after it (coerced in place).
 */
export function numeralProblems(leaves: StringLeaf[], data: unknown): FieldProblem[] {
  return leaves
    .filter((leaf) => typeof valueAt(data, leaf.path) === 'number')
    .map((leaf) =>
      problem(
        leaf.path,
        DECIMAL.test(leaf.value)
          ? 'is out of range'
          : 'must be a decimal number (digits, an optional minus sign and fraction)',
      ),
    );
}

/** The JSON type of every scalar of a JSON input, by path, before text-mode validation coerces. */
export function scalarTypes(data: unknown): { path: (string | number)[]; type: string }[] {
  const found: { path: (string | number)[]; type: string }[] = [];
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value: data, path: [] }];
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    if (Array.isArray(value)) value.forEach((item, index) => pending.push({ value: item, path: [...path, index] }));
    else if (typeof value === 'object' && value !== null)
      for (const [key, item] of Object.entries(value)) pending.push({ value: item, path: [...path, key] });
    else found.push({ path, type: jsonType(value) });
  }
  return found;
}

/** Problems of JSON values that text-mode validation turned into another type (`"5"` read as 5). */
export function retypedProblems(types: { path: (string | number)[]; type: string }[], data: unknown): FieldProblem[] {
  return types
    .filter(({ path, type }) => jsonType(valueAt(data, path)) !== type)
    .map(({ path, type }) => problem(path, `must be ${jsonType(valueAt(data, path))} in JSON, not ${type}`));
}

function jsonType(value: unknown): string {
  return value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`;
}

function valueAt(data: unknown, path: (string | number)[]): unknown {
  let current = data;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

function problem(path: (string | number)[], rule: string): FieldProblem {
  const field = path.join('/');
  return { field, detail: `${field === '' ? 'The body' : path.join('.')} ${rule}` };
}

/**
 * A copy of the schema in which every integer without bounds of its own is held to the safe
 * integers (a bound that is there already is kept: it is at least as strict where it matters).
 */
export function schemaWithSafeIntegers<S>(schema: S): S {
  return JSON.parse(JSON.stringify(schema), (_key, value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const node = value as Record<string, unknown>;
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (!types.includes('integer')) return node;
    return {
      ...node,
      ...(node.maximum === undefined && node.exclusiveMaximum === undefined
        ? { maximum: Number.MAX_SAFE_INTEGER }
        : {}),
      ...(node.minimum === undefined && node.exclusiveMinimum === undefined
        ? { minimum: Number.MIN_SAFE_INTEGER }
        : {}),
    };
  }) as S;
}
