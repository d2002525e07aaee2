/**
 * Requests that break one field of the operation's input schema, in the query or in a JSON (plain,
 * with a key given twice, gzip-compressed) or form body; the oracle keeps only inputs the schema
 * refuses.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { badJson, badText, plausible, propertiesOf, type Schema } from './bad-values.js';
import { LIMITS, type FuzzWorld } from './fuzz-gateway.js';
import type { DocumentedOperation } from './operations.js';
import { formText, jsonBreaks, jsonText, textBreaks } from './oracle.js';
import type { FuzzRequest } from './send.js';
import { baseline, credentials, FORM_TYPE, JSON_TYPE, pathWith } from './valid-parts.js';

/** Requests that break the operation's input schema (one field), in the query, or as a JSON or form body. */
export function brokenInput(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest>[] {
  const arbitraries: fc.Arbitrary<FuzzRequest>[] = [];
  const headers = credentials(op, world);
  const target = pathWith(world, op);
  const field = (schema: Schema) => fc.constantFrom(...propertiesOf(schema).keys());
  if (op.query !== undefined && propertiesOf(op.query).size > 0) {
    const schema = op.query;
    arbitraries.push(
      field(schema)
        .chain((name) =>
          badText(propertiesOf(schema).get(name)!).map((value) => ({ ...baseline(schema, world), [name]: value })),
        )
        .map((input) => formText(input))
        .filter((text) => textBreaks(schema, text, false))
        .map((text) => ({ method: op.method, target: `${target}?${text}`, headers })),
    );
    // API routes take a GET's parameters as a JSON body too, typed as JSON.
    if (op.method === 'GET' && op.security === 'api') {
      arbitraries.push(
        field(schema)
          .chain((name) =>
            badJson(propertiesOf(schema).get(name)!).map((value) =>
              jsonText({ ...baseline(schema, world), [name]: value }),
            ),
          )
          .filter((text) => jsonBreaks(schema, text, LIMITS.jsonDepth))
          .map((text) => ({
            method: op.method,
            target,
            headers: { ...headers, ...JSON_TYPE },
            body: Buffer.from(text),
          })),
      );
    }
  }
  if (op.body !== undefined && propertiesOf(op.body).size > 0) {
    const schema = op.body;
    const broken = field(schema).chain((name) =>
      badJson(propertiesOf(schema).get(name)!).map((value) => ({ name, value })),
    );
    arbitraries.push(
      broken
        .map(({ name, value }) => jsonText({ ...baseline(schema, world), [name]: value }))
        .filter((text) => jsonBreaks(schema, text, LIMITS.jsonDepth))
        .map((text) => ({ method: op.method, target, headers: { ...headers, ...JSON_TYPE }, body: Buffer.from(text) })),
      // A key given twice: JSON.parse keeps the last one, the broken one.
      broken
        .map(({ name, value }) => {
          const plain = jsonText({ ...baseline(schema, world), [name]: plausible(propertiesOf(schema).get(name)!) });
          return `${plain.slice(0, -1)}${plain === '{}' ? '' : ','}${JSON.stringify(name)}:${jsonText(value)}}`;
        })
        .filter((text) => jsonBreaks(schema, text, LIMITS.jsonDepth))
        .map((text) => ({ method: op.method, target, headers: { ...headers, ...JSON_TYPE }, body: Buffer.from(text) })),
      // The same broken input, gzip-compressed: decoded first, then refused for what it holds.
      broken
        .map(({ name, value }) => jsonText({ ...baseline(schema, world), [name]: value }))
        .filter((text) => jsonBreaks(schema, text, LIMITS.jsonDepth) && text.length < LIMITS.bodyBytes)
        .map((text) => ({
          method: op.method,
          target,
          headers: { ...headers, ...JSON_TYPE, 'content-encoding': 'gzip' },
          body: gzipSync(text),
        })),
      field(schema)
        .chain((name) =>
          badText(propertiesOf(schema).get(name)!).map((value) => ({ ...baseline(schema, world), [name]: value })),
        )
        .map((input) => formText(input))
        .filter((text) => textBreaks(schema, text, true))
        .map((text) => ({ method: op.method, target, headers: { ...headers, ...FORM_TYPE }, body: Buffer.from(text) })),
    );
  }
  return arbitraries;
}
