import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { companyCreateBody, companyUpdateBody } from '../../schemas/v1/companies.js';
import { v1PageQuery } from '../../schemas/v1/paging.js';
import { BadRequest, ValidationFailed, type FieldProblem } from '../errors/errors.js';
import { isWebhookUrl, mayNestDeeperThan, nestedDeeperThan, toProblems, validator } from './validate.js';
import { errorEntries, httpStatusOf } from './render-errors.js';

const sample = {
  type: 'object',
  required: ['name', 'kind'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 5 },
    kind: { type: 'string', enum: ['a', 'b'] },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    flag: { type: 'boolean' },
    note: { type: ['string', 'null'] },
    template: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string' }, parameters: { type: 'array', items: { type: 'string' } } },
    },
  },
} as const;

/** Raw ajv errors for the sample schema, as the validator's compiler would report them. */
function ajvErrors(data: unknown) {
  const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
  const validate = ajv.compile(sample);
  expect(validate(data)).toBe(false);
  return validate.errors ?? [];
}

function problemsFrom(fn: () => unknown): FieldProblem[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationFailed);
    return (error as ValidationFailed).problems;
  }
  throw new Error('expected ValidationFailed');
}

const byField = (problems: FieldProblem[]) => Object.fromEntries(problems.map((p) => [p.field, p.detail]));

describe('toProblems', () => {
  it('answers one problem per failing field, in the sentence naming the field', () => {
    const problems = toProblems(ajvErrors({ name: 'toolong', count: 0, flag: 'x' }));
    expect(byField(problems)).toEqual({
      name: 'name must be at most 5 characters',
      kind: 'kind is required',
      count: 'count must be at least 1',
      flag: 'flag must be a boolean',
    });
  });

  it('keeps one problem for a field that fails several rules', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile({
      type: 'object',
      properties: { name: { type: 'string', minLength: 3, pattern: '^x' } },
    });
    expect(validate({ name: 'a' })).toBe(false);
    expect(validate.errors!.length).toBeGreaterThan(1);
    const problems = toProblems(validate.errors!);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.field).toBe('name');
    expect(problems[0]!.detail).toContain('name');
  });

  it('names the field in required, type, maxLength and enum messages', () => {
    const problems = byField(toProblems(ajvErrors({ name: 7, kind: 'c', note: 3 })));
    expect(problems.name).toBe('name must be a string');
    expect(problems.kind).toBe('kind must be one of: a, b');
    expect(problems.note).toBe('note must be a string or null');
    expect(byField(toProblems(ajvErrors({ kind: 'a' }))).name).toBe('name is required');
    expect(byField(toProblems(ajvErrors({ name: 'abcdef', kind: 'a' }))).name).toBe(
      'name must be at most 5 characters',
    );
  });

  it('describes minimum, maximum, minLength and integer type', () => {
    expect(byField(toProblems(ajvErrors({ name: 'a', kind: 'a', count: 11 }))).count).toBe('count must be at most 10');
    expect(byField(toProblems(ajvErrors({ name: 'a', kind: 'a', count: 1.5 }))).count).toBe('count must be an integer');
    expect(byField(toProblems(ajvErrors({ name: '', kind: 'a' }))).name).toBe('name must not be empty');
  });

  it('points at nested fields with a path and names them with dots', () => {
    const problems = toProblems(ajvErrors({ name: 'a', kind: 'a', template: { parameters: [1] } }));
    expect(byField(problems)).toEqual({
      'template/id': 'template.id is required',
      'template/parameters/0': 'template.parameters.0 must be a string',
    });
  });

  it('names the body itself when the whole input is wrong', () => {
    const problems = toProblems(ajvErrors('text'));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.field).toBe('');
    expect(problems[0]!.detail).toMatch(/^The body must be an object$/);
  });

  it('answers no problems for no errors', () => {
    expect(toProblems([])).toEqual([]);
  });
});

describe('validator', () => {
  const page = validator(v1PageQuery);

  it('coerces text input (form bodies, query strings)', () => {
    const data = page({ per: '7', sort_direction: 'desc' }, 'text') as { per: unknown };
    expect(data.per).toBe(7);
    const update = validator(companyUpdateBody);
    expect(update({ hidden: 'true' }, 'text')).toEqual({ hidden: true });
    expect(update({ hidden: 'false' }, 'text')).toEqual({ hidden: false });
  });

  it('does not coerce JSON input', () => {
    expect(byField(problemsFrom(() => page({ per: '7' }, 'json')))).toEqual({ per: 'per must be an integer' });
    expect(problemsFrom(() => validator(companyUpdateBody)({ hidden: 'true' }, 'json')).map((p) => p.field)).toEqual([
      'hidden',
    ]);
    expect(problemsFrom(() => validator(companyCreateBody)({ name: 5 }, 'json')).map((p) => p.field)).toEqual(['name']);
  });

  it('still refuses text that does not read as the type', () => {
    expect(problemsFrom(() => page({ per: 'abc' }, 'text')).map((p) => p.field)).toEqual(['per']);
    expect(problemsFrom(() => validator(companyUpdateBody)({ hidden: 'yes' }, 'text')).map((p) => p.field)).toEqual([
      'hidden',
    ]);
  });

  it('fills in defaults', () => {
    expect(page({}, 'text')).toEqual({ per: 50, sort_direction: 'asc' });
    expect(page({}, 'json')).toEqual({ per: 50, sort_direction: 'asc' });
  });

  it('answers the input when it is valid', () => {
    const create = validator(companyCreateBody);
    const input = { name: 'Acme', phone: null, webhook_url: 'https://example.com/hook' };
    expect(create(input, 'json')).toEqual(input);
  });

  it('throws ValidationFailed with one problem per failing field', () => {
    const create = validator(companyCreateBody);
    const problems = problemsFrom(() =>
      create({ name: 'x'.repeat(256), phone: 5, webhook_url: 'ftp://example.com' }, 'json'),
    );
    expect(problems.map((p) => p.field).sort()).toEqual(['name', 'phone', 'webhook_url']);
    const failure = (() => {
      try {
        create({}, 'json');
      } catch (error) {
        return error as ValidationFailed;
      }
      throw new Error('expected a failure');
    })();
    expect(httpStatusOf(failure)).toBe(422);
    expect(failure.code).toBe('validation_failed');
    expect(errorEntries(failure)).toEqual([
      {
        status: 422,
        code: 'validation_failed',
        title: 'Validation failed',
        detail: 'name is required',
        source: { pointer: '/name' },
      },
    ]);
  });

  it('uses the schema x-message for custom rules', () => {
    const create = validator(companyCreateBody);
    expect(byField(problemsFrom(() => create({ name: '   ' }, 'json'))).name).toBe('name must not be blank');
    expect(byField(problemsFrom(() => create({ name: 'a', webhook_url: 'not a url' }, 'json'))).webhook_url).toBe(
      'webhook_url must be an absolute http(s) URL',
    );
  });

  it.each([null, undefined, 'text', 5, true, [], [{ name: 'x' }]])(
    'throws BadRequest for the non-object body %j',
    (body) => {
      const create = validator(companyCreateBody);
      expect(() => create(body, 'json')).toThrow(BadRequest);
      expect(() => create(body, 'text')).toThrow(BadRequest);
    },
  );

  it('compiles schemas without an $id and the same $id twice', () => {
    const a = validator({ type: 'object', properties: { x: { type: 'integer' } } } as const);
    expect(a({ x: '3' }, 'text')).toEqual({ x: 3 });
    const again = validator(v1PageQuery);
    expect(again({ per: '2' }, 'text')).toEqual({ per: 2, sort_direction: 'asc' });
  });
});

describe('isWebhookUrl', () => {
  it.each(['https://example.com/hook', 'http://example.com', 'http://127.0.0.1:8080/x?y=1', ''])(
    'accepts %j',
    (url) => {
      expect(isWebhookUrl(url)).toBe(true);
    },
  );

  it.each([
    'ftp://example.com/hook',
    '/relative/path',
    'example.com/hook',
    'not a url',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'http://',
  ])('refuses %j', (url) => {
    expect(isWebhookUrl(url)).toBe(false);
  });
});

describe('validator: the rules every value keeps (input-values.ts)', () => {
  const validate = validator({
    type: 'object',
    properties: {
      name: { type: 'string' },
      count: { type: 'integer', minimum: 1, maximum: 10 },
      big: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string' } },
    },
  });

  it('refuses text with NUL or an unpaired surrogate, naming the field', () => {
    for (const name of ['a\u0000b', '\ud800', 'x\udc00', '🙂\ud83d']) {
      expect(problemsFrom(() => validate({ name }, 'json'))).toEqual([
        { field: 'name', detail: 'name must be text without NUL characters or unpaired surrogates' },
      ]);
    }
    expect(problemsFrom(() => validate({ tags: ['ok', '\u0000'] }, 'text'))).toEqual([
      { field: 'tags/1', detail: 'tags.1 must be text without NUL characters or unpaired surrogates' },
    ]);
    expect(validate({ name: '👩‍👩‍👧‍👦 \u202eRTL' }, 'json')).toEqual({ name: '👩‍👩‍👧‍👦 \u202eRTL' });
  });

  it('reads numbers from text as finite decimal numerals only', () => {
    for (const count of ['0x5', '5e0', '+5', ' 5', '5 ', 'Infinity', '0b101']) {
      expect(problemsFrom(() => validate({ count }, 'text'))).toEqual([
        { field: 'count', detail: 'count must be a decimal number (digits, an optional minus sign and fraction)' },
      ]);
    }
    expect(problemsFrom(() => validate({ big: '9'.repeat(400) }, 'text'))).toEqual([
      { field: 'big', detail: 'big is out of range' },
    ]);
    expect(validate({ count: '5', name: '0x5' }, 'text')).toEqual({ count: 5, name: '0x5' });
  });

  it('holds integers without bounds of their own to the safe integers', () => {
    expect(problemsFrom(() => validate({ big: 2 ** 53 }, 'json'))).toEqual([
      { field: 'big', detail: 'big must be at most 9007199254740991' },
    ]);
    expect(problemsFrom(() => validate({ big: '-9007199254740993' }, 'text'))).toEqual([
      { field: 'big', detail: 'big must be at least -9007199254740991' },
    ]);
    expect(validate({ big: Number.MAX_SAFE_INTEGER }, 'json')).toEqual({ big: Number.MAX_SAFE_INTEGER });
  });

  it('keeps the JSON types of the typed part of a text input (a GET JSON body)', () => {
    const typed = { count: '5' };
    expect(problemsFrom(() => validate({ ...typed }, 'text', typed))).toEqual([
      { field: 'count', detail: 'count must be a number in JSON, not a string' },
    ]);
    const ok = { count: 5 };
    expect(validate({ ...ok, name: 'x' }, 'text', ok)).toEqual({ count: 5, name: 'x' });
  });
});

describe('mayNestDeeperThan', () => {
  it('answers false only for texts that cannot nest deeper than the limit, whatever the walk finds', () => {
    const texts = [
      '{}',
      '[[[]]]',
      '{"a":[{"b":[1]}]}',
      '{"s":"[[[[{{{{"}',
      '['.repeat(5) + ']'.repeat(5),
      '{"a":{"b":{"c":{}}}}',
    ];
    for (const text of texts) {
      for (const limit of [0, 1, 2, 3, 4, 5, 6]) {
        if (!mayNestDeeperThan(text, limit)) expect(nestedDeeperThan(JSON.parse(text), limit)).toBe(false);
      }
    }
    expect(mayNestDeeperThan('[[[]]]', 2)).toBe(true);
    expect(mayNestDeeperThan('[[[]]]', 3)).toBe(false);
    // Brackets inside strings count too: the answer errs towards the walk.
    expect(mayNestDeeperThan('{"s":"[[[["}', 2)).toBe(true);
  });
});
