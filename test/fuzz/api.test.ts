import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefusedLeavingNothing } from './expect-refused.js';
import { FUZZ, startFuzzGateway, type FuzzWorld } from './fuzz-gateway.js';
import { documentedOperations, type DocumentedOperation } from './operations.js';
import { refusedRequests } from './refused-requests.js';
import { send } from './send.js';

/**
 * Every operation of /openapi.json (the REST API v1 and v2, the admin API, the service routes and
 * the subscribe handshake), fuzzed from its own schema: broken fields in the query, JSON or form
 * body, unknown and foreign ids, bad credentials, bodies of other media types and codings, malformed
 * or oversized bodies and queries. Each must be refused with a documented 4xx in the error shape,
 * answered in time, with nothing stored or changed. FUZZ_SEED and FUZZ_RUNS (runs per operation)
 * size the run; `npm run fuzz` runs it long.
 */

let world: FuzzWorld;
let operations: DocumentedOperation[];

// Uploads and provider callbacks have suites of their own (multipart bodies, signatures).
const OWN_SUITES = new Set([
  'POST /api/p2/companies/{companyId}/attachments',
  'POST /callbacks/{provider}/{channelId}',
]);

beforeAll(async () => {
  world = await startFuzzGateway();
  const document = await send(world, { method: 'GET', target: '/openapi.json', headers: {} });
  operations = documentedOperations(document.body as Parameters<typeof documentedOperations>[0]).filter(
    (op) => !OWN_SUITES.has(`${op.method} ${op.path}`),
  );
});
afterAll(() => world.gw.close());

describe(`fuzzing every operation (FUZZ_SEED=${FUZZ.seed} FUZZ_RUNS=${FUZZ.runs})`, () => {
  it('covers every documented operation of the API, the admin API and the service routes', () => {
    expect(operations.length).toBeGreaterThan(50);
    for (const prefix of [
      '/p1/',
      '/api/p2/',
      '/admin/deliveries',
      '/admin/replays',
      '/admin/companies/',
      '/admin/pipeline',
      '/admin/channels/',
      '/admin/sandbox/',
      '/admin/tokens',
      '/callbacks/',
      '/files/',
      '/healthz',
      '/metrics',
    ]) {
      expect(
        operations.some((op) => op.path.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
    const labels = operations.map((op) => `${op.method} ${op.path}`);
    for (const label of [
      'POST /api/p2/conversations/{id}/messages/{messageId}/reactions',
      'DELETE /api/p2/conversations/{id}/messages/{messageId}/reactions',
      'PATCH /api/p2/conversations/{id}/messages/{messageId}',
      'POST /api/p2/conversations/{id}/read',
    ])
      expect(labels, label).toContain(label);
  });

  it('refuses every broken request with a documented 4xx in the error shape, in time, storing nothing', async () => {
    for (const [index, op] of operations.entries()) {
      await fc.assert(
        fc.asyncProperty(refusedRequests(world, op), (request) =>
          expectRefusedLeavingNothing(world, request, op.statuses).then(() => undefined),
        ),
        { seed: FUZZ.seed + index, numRuns: FUZZ.runs, endOnFailure: false },
      );
    }
  }, 600_000);
});
