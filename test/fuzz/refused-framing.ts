/**
 * Requests refused before any field is read: a body of another media type or coding, malformed,
 * too large or too deep; a query too long, with malformed escapes, or nested beyond qs's limits.
 */
import fc from 'fast-check';
import { deepNesting } from './bad-values.js';
import { LIMITS, type FuzzWorld } from './fuzz-gateway.js';
import type { DocumentedOperation } from './operations.js';
import { jsonText } from './oracle.js';
import type { FuzzRequest } from './send.js';
import { baseline, credentials, FORM_TYPE, JSON_TYPE, pathWith } from './valid-parts.js';

/** Bodies refused before their fields are read: media type, coding, syntax, size, nesting. */
export function brokenBody(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest>[] {
  if (!op.statuses.includes(415)) return [];
  const target = pathWith(world, op);
  const headers = credentials(op, world);
  const valid = Buffer.from(jsonText(op.body === undefined ? {} : baseline(op.body, world)));
  const request = (extra: Record<string, string>, body: Buffer): FuzzRequest => ({
    method: op.method,
    target,
    headers: { ...headers, ...extra },
    body,
  });
  const arbitraries: fc.Arbitrary<FuzzRequest>[] = [
    fc.constant({ method: op.method, target, headers, body: valid }), // a body without a Content-Type
    fc
      .constantFrom(
        'text/plain',
        'application/xml',
        'application/octet-stream',
        'image/png',
        'application/jsonx',
        'multipart/form-data; boundary=zz',
        'text/json-seq',
      )
      .map((type) => request({ 'content-type': type }, valid)),
    fc
      .constantFrom('compress', 'foo', 'gzip, br', 'x-gzip', 'zstd', 'identity, gzip')
      .map((coding) => request({ ...JSON_TYPE, 'content-encoding': coding }, valid)),
    fc
      .tuple(fc.constantFrom('gzip', 'deflate', 'br'), fc.uint8Array({ minLength: 1, maxLength: 64 }))
      .map(([coding, bytes]) =>
        request(
          { ...JSON_TYPE, 'content-encoding': coding },
          Buffer.concat([Buffer.from('{"not":"compressed"}'), Buffer.from(bytes)]),
        ),
      ),
    fc
      .constantFrom('{', '{"a":', '[1,', "{'a':1}", 'nul', '{"a":1}}', '\u0000', '{"a":"\\x"}', '{"a":01}')
      .map((text) => request(JSON_TYPE, Buffer.from(text))),
    fc
      .uint8Array({ minLength: 1, maxLength: 40 })
      .filter((bytes) => !isJsonText(bytes))
      .map((bytes) => request(JSON_TYPE, Buffer.from(bytes))),
    // Bytes that are not UTF-8 inside a JSON string or a form value: never read as U+FFFD.
    fc
      .tuple(
        fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]),
        fc.boolean(),
      )
      .map(([bytes, form]) =>
        form
          ? request(FORM_TYPE, Buffer.concat([Buffer.from('name='), Buffer.from(bytes)]))
          : request(JSON_TYPE, Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bytes), Buffer.from('"}')])),
      ),
    fc
      .integer({ min: 1, max: 200 })
      .map((over) => request(JSON_TYPE, Buffer.from(JSON.stringify({ name: 'x'.repeat(LIMITS.bodyBytes + over) })))),
    fc
      .integer({ min: LIMITS.jsonDepth + 1, max: 300 })
      .map((depth) => request(JSON_TYPE, Buffer.from(JSON.stringify({ name: deepNesting(depth) })))),
  ];
  // Only where the body is the input: a GET or DELETE reads its query and drops a body that is no object.
  if (op.body !== undefined) {
    arbitraries.push(
      fc
        .constantFrom('[]', '[{"a":1}]', '"text"', '42', 'null', 'true')
        .map((text) => request(JSON_TYPE, Buffer.from(text))),
    );
  }
  return arbitraries;
}

function isJsonText(bytes: Uint8Array): boolean {
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/** Query strings refused whatever the route: too long, malformed escapes; nesting beyond qs's limits where the query is read. */
export function brokenQuery(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest>[] {
  const target = pathWith(world, op);
  const headers = credentials(op, world);
  const arbitraries: fc.Arbitrary<FuzzRequest>[] = [
    fc
      .integer({ min: 1, max: 2000 })
      .map((over) => ({ method: op.method, target: `${target}?pad=${'a'.repeat(LIMITS.queryBytes + over)}`, headers })),
    fc
      .constantFrom('x=%ZZ', 'x=%', 'x=%E2%82', '%ED%A0%80=1', 'x=%C0%AF', 'a=1&b=%FF')
      .map((query) => ({ method: op.method, target: `${target}?${query}`, headers })),
  ];
  if (op.query !== undefined) {
    arbitraries.push(
      fc
        .constantFrom(
          'a[b][c][d][e][f][g]=1',
          `${'a=1&'.repeat(1001)}b=2`,
          Array.from({ length: 102 }, () => 'l[]=1').join('&'),
        )
        .map((query) => ({ method: op.method, target: `${target}?${query}`, headers })),
    );
  }
  return arbitraries;
}
