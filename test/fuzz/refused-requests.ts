/**
 * The refused requests of one operation, every kind drawn from one arbitrary: the fuzz tests run
 * their property over it.
 */
import fc from 'fast-check';
import type { FuzzWorld } from './fuzz-gateway.js';
import type { DocumentedOperation } from './operations.js';
import { brokenAuth } from './refused-auth.js';
import { brokenBody, brokenQuery } from './refused-framing.js';
import { brokenInput } from './refused-input.js';
import { brokenPath } from './refused-path.js';
import type { FuzzRequest } from './send.js';

/** Every kind of refused request for one operation. */
export function refusedRequests(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    ...brokenInput(world, op),
    ...brokenPath(world, op),
    ...brokenAuth(world, op),
    ...brokenBody(world, op),
    ...brokenQuery(world, op),
  );
}
