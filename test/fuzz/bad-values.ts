import fc from 'fast-check';

/**
 * Values that break a JSON Schema, generated from the schema itself: wrong types, numbers out of
 * range or not finite, strings too long or not text (NUL, unpaired surrogates), odd text (RTL,
 * emoji) where a fixed set of values or a pattern is expected, nested objects and arrays where a
 * scalar belongs, and deep nesting. Typed values are sent as JSON; TextValue ones as query or form
 * text. Whether a generated input really breaks its schema is judged by the oracle (oracle.ts).
 */

export type Schema = Record<string, unknown>;

/** JSON text placed into a JSON body as it is (numerals JSON.stringify cannot write: 1e400, 2^64). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Text for a query or form field, already percent-encoded where `encoded` (malformed escapes on purpose). */
export class TextValue {
  constructor(
    readonly text: string,
    readonly encoded = false,
  ) {}
}

const RTL = '\u202eevil\u202c';
const EMOJI = '👩‍👩‍👧‍👦';
/** Strings no schema of ours accepts in a field with an enum, a pattern or a format. */
export const oddStrings = fc.constantFrom(
  '',
  ' ',
  RTL,
  EMOJI,
  'x\u0000y',
  '\ud800',
  'a\udc00',
  '\u0000',
  '🙂\ud83d',
  '<script>',
  "'; DROP TABLE companies; --",
  '\\',
  '%00',
  '../../etc/passwd',
);
const notText = fc.constantFrom('x\u0000y', '\u0000', '\ud800', 'a\udc00b', '\udfff\ud800', `${EMOJI}\ud83d`);

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.enum !== undefined || schema.const !== undefined) return ['enum'];
  return [];
}

/** Nested arrays and objects this deep, where anything else was expected. */
export function deepNesting(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

const anyScalar = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 8 }),
);
const structures = fc.oneof(
  fc.array(anyScalar, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), anyScalar, { maxKeys: 3 }),
  fc.integer({ min: 2, max: 30 }).map(deepNesting),
);

/** A value of the wrong JSON type for the schema. */
function wrongType(types: string[]): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [];
  if (!types.includes('string') && !types.includes('enum')) options.push(fc.string({ maxLength: 12 }), oddStrings);
  if (!types.includes('integer') && !types.includes('number'))
    options.push(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
  if (!types.includes('boolean')) options.push(fc.boolean());
  if (!types.includes('null')) options.push(fc.constant(null));
  if (!types.includes('array') && !types.includes('object')) options.push(structures);
  if (!types.includes('array')) options.push(fc.array(anyScalar, { minLength: 1, maxLength: 3 }));
  if (!types.includes('object'))
    options.push(fc.dictionary(fc.string({ maxLength: 5 }), anyScalar, { minKeys: 1, maxKeys: 3 }));
  return fc.oneof(...options);
}

function numberNumber(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

/** JSON values that break `schema`, typed. */
export function badJson(schema: Schema): fc.Arbitrary<unknown> {
  const types = typesOf(schema);
  const options: fc.Arbitrary<unknown>[] = [wrongType(types)];
  if (types.includes('integer') || types.includes('number')) {
    const min = numberNumber(schema.minimum, -Number.MAX_SAFE_INTEGER);
    const max = numberNumber(schema.maximum, Number.MAX_SAFE_INTEGER);
    options.push(
      fc.constantFrom(min - 1, max + 1, 2 ** 53, -(2 ** 53), 1e20, -1e300),
      fc.constantFrom(
        new RawJson('1e400'),
        new RawJson('-1e400'),
        new RawJson('18446744073709551616'),
        new RawJson('9007199254740993'),
        new RawJson('1E999'),
      ),
    );
    if (types.includes('integer') && !types.includes('number')) options.push(fc.constantFrom(1.5, 0.1, min + 0.5));
  }
  if (types.includes('string')) {
    options.push(notText);
    if (typeof schema.maxLength === 'number')
      options.push(fc.constantFrom(EMOJI, RTL, 'x').map((unit) => unit.repeat((schema.maxLength as number) + 1)));
    if (typeof schema.minLength === 'number' && schema.minLength > 0) options.push(fc.constant(''));
    if (schema.enum !== undefined || schema.pattern !== undefined || schema.format !== undefined)
      options.push(oddStrings);
  }
  if (types.includes('enum')) options.push(oddStrings, fc.integer());
  if (types.includes('array')) {
    const items = (schema.items as Schema | undefined) ?? {};
    options.push(fc.array(badJson(items), { minLength: 1, maxLength: 2 }));
    if (typeof schema.maxItems === 'number')
      options.push(fc.constant(Array.from({ length: schema.maxItems + 1 }, () => 1)));
  }
  if (types.includes('object') && schema.properties !== undefined) {
    const names = Object.keys(schema.properties as Schema);
    if (names.length > 0) {
      options.push(
        fc
          .constantFrom(...names)
          .chain((name) =>
            badJson((schema.properties as Record<string, Schema>)[name]!).map((value) => ({ [name]: value })),
          ),
      );
    }
  }
  for (const branch of branchesOf(schema)) options.push(badJson(branch));
  return fc.oneof(...options);
}

/** Query or form values that break `schema` once read as text. */
export function badText(schema: Schema): fc.Arbitrary<unknown> {
  const types = typesOf(schema);
  const malformed = fc.constantFrom(
    new TextValue('%ZZ', true),
    new TextValue('%ED%A0%80', true),
    new TextValue('%C0%80', true),
    new TextValue('%', true),
    new TextValue('%00', true),
  );
  const nested = fc.oneof(
    fc.constant({ x: '1' }),
    fc.constant(['1', '2']),
    fc.constant({ a: { b: { c: { d: { e: { f: '1' } } } } } }),
  );
  const options: fc.Arbitrary<unknown>[] = [malformed, notText.map((text) => new TextValue(text))];
  if (!types.includes('object') && !types.includes('array')) options.push(nested);
  if (types.includes('integer') || types.includes('number')) {
    const max = numberNumber(schema.maximum, Number.MAX_SAFE_INTEGER);
    const min = numberNumber(schema.minimum, -Number.MAX_SAFE_INTEGER);
    options.push(
      fc.constantFrom(
        'abc',
        '',
        ' ',
        '0x10',
        '0b11',
        '0o7',
        '1e3',
        '+5',
        ' 7',
        '7 ',
        'Infinity',
        '-Infinity',
        'NaN',
        '1,5',
        '٣',
        '９',
      ),
      fc.constantFrom(
        String(max + 1),
        String(min - 1),
        '99999999999999999999',
        '9007199254740993',
        `${'9'.repeat(400)}`,
      ),
    );
    if (!types.includes('number')) options.push(fc.constantFrom('1.5', '0.1'));
  }
  if (types.includes('boolean')) options.push(fc.constantFrom('maybe', '2', 'TRUE ', 'yes'));
  if (types.includes('string') && typeof schema.maxLength === 'number')
    options.push(fc.constantFrom(EMOJI, RTL, 'x').map((unit) => unit.repeat((schema.maxLength as number) + 1)));
  if (types.includes('string') || types.includes('enum')) {
    if (
      schema.enum !== undefined ||
      schema.const !== undefined ||
      schema.pattern !== undefined ||
      schema.format !== undefined
    )
      options.push(oddStrings.filter((s) => !/[\u0000\ud800-\udfff]/.test(s)));
  }
  if (types.includes('array')) {
    const items = (schema.items as Schema | undefined) ?? {};
    options.push(badText(items).map((item) => [item]));
  }
  for (const branch of branchesOf(schema)) options.push(badText(branch));
  return fc.oneof(...options);
}

function branchesOf(schema: Schema): Schema[] {
  return ['oneOf', 'anyOf', 'allOf'].flatMap((key) => (Array.isArray(schema[key]) ? (schema[key] as Schema[]) : []));
}

/** Every property a schema names, in its own properties and in its branches (first schema of a name wins). */
export function propertiesOf(schema: Schema): Map<string, Schema> {
  const found = new Map<string, Schema>();
  const visit = (node: Schema): void => {
    for (const [name, property] of Object.entries((node.properties as Record<string, Schema> | undefined) ?? {}))
      if (!found.has(name)) found.set(name, property);
    for (const branch of branchesOf(node)) visit(branch);
    for (const key of ['then', 'else'])
      if (typeof node[key] === 'object' && node[key] !== null) visit(node[key] as Schema);
  };
  visit(schema);
  return found;
}

/**
 * A plausible valid value (the default, the first allowed value, the smallest number, a short
 * string): the rest of an input around the one broken field, so the request gets past the checks
 * that come before the field's.
 */
export function plausible(schema: Schema): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const [type] = typesOf(schema);
  switch (type) {
    case 'integer':
    case 'number':
      return numberNumber(schema.minimum, 1);
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    case 'string':
      return 'x'.repeat(Math.max(1, numberNumber(schema.minLength, 1)));
    default:
      return branchesOf(schema).length > 0 ? plausible(branchesOf(schema)[0]!) : 'x';
  }
}
