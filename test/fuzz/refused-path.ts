/**
 * Requests whose path names something that is not there for this account: an unknown or malformed
 * id, or account B's.
 */
import fc from 'fast-check';
import type { FuzzWorld } from './fuzz-gateway.js';
import type { DocumentedOperation } from './operations.js';
import { formText, jsonText } from './oracle.js';
import type { FuzzRequest } from './send.js';
import { baseline, credentials, JSON_TYPE, paramsOf, pathIds, pathWith } from './valid-parts.js';

const badIds = fc.constantFrom(
  '0',
  '-1',
  '999999',
  '99999999999999999999',
  '9007199254740993',
  '1e3',
  '0x10',
  '01',
  'abc',
  '%00',
  '%ED%A0%80',
  '%ZZ',
  '%20',
  '%F0%9F%99%82',
  '1.0',
  '%E2%80%AE1',
);

/** Requests whose path names something that is not there for this account. */
export function brokenPath(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest>[] {
  const params = paramsOf(op);
  if (params.length === 0) return [];
  const query = op.query === undefined ? '' : `?${formText(baseline(op.query, world))}`;
  const body = op.body === undefined ? undefined : Buffer.from(jsonText(baseline(op.body, world)));
  const headers = { ...credentials(op, world), ...(body === undefined ? {} : JSON_TYPE) };
  return [
    fc
      .constantFrom(...params)
      .chain((param) => {
        const foreign = pathIds(world, op, param).foreign;
        const numeric = !['deliveryId', 'taskId', 'storageKey', 'fileName'].includes(param);
        const values = numeric
          ? foreign === undefined
            ? badIds
            : fc.oneof(badIds, fc.constant(foreign))
          : fc.oneof(
              badIds,
              fc
                .string({ minLength: 1, maxLength: 40 })
                .map(encodeURIComponent)
                .filter((s) => s !== '.' && s !== '..'),
            );
        return values.map((value) => ({ param, value }));
      })
      .filter(({ param, value }) => value !== pathIds(world, op, param).own)
      .map((broken) => ({
        method: op.method,
        target: `${pathWith(world, op, broken)}${query}`,
        headers,
        ...(body === undefined ? {} : { body }),
      })),
  ];
}
