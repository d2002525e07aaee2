import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILTER_OPS } from '../../schemas/objects/endpoint-filter.js';
import type { Schema } from './bad-values.js';
import { expectRefusedLeavingNothing } from './expect-refused.js';
import { FUZZ, LIMITS, startFuzzGateway, type FuzzWorld } from './fuzz-gateway.js';
import { jsonBreaks, jsonText } from './oracle.js';
import { send } from './send.js';

/**
 * The webhook endpoint options (docs/api.md, "Endpoint options") fuzzed deeper than the suite's
 * generic per-field values reach: whole filter trees and retry schedules,
 * valid and broken, sent to PATCH .../webhooks/<id>. The oracle (the published schema) judges
 * each: a broken one is refused with a 422 changing nothing; a valid filter is stored and answered
 * as sent; a valid schedule is taken within the operator's bounds (the defaults here: 20
 * attempts, 1 day) and refused with a 422 beyond them.
 */

let world: FuzzWorld;
let schema: Schema;
let target: string;
beforeAll(async () => {
  world = await startFuzzGateway();
  const document = await send(world, { method: 'GET', target: '/openapi.json', headers: {} });
  const paths = (document.body as { paths: Record<string, Record<string, Record<string, unknown>>> }).paths;
  const patch = paths['/api/p2/companies/{companyId}/webhooks/{id}']!.patch as {
    requestBody: { content: Record<string, { schema: Schema }> };
  };
  schema = patch.requestBody.content['application/json']!.schema;
  target = `/api/p2/companies/${world.own.company}/webhooks/${world.own.webhook}`;
});
afterAll(() => world.gw.close());

const scalar = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null), fc.double());
const path = fc.oneof(
  fc.constantFrom('type', 'event', 'object.id', 'object.tags.0', 'object.a-b_c', 'body.id', '', 'object.', 'x'),
  fc.string({ maxLength: 12 }),
);
const { filter } = fc.letrec<{ filter: unknown; condition: unknown }>((tie) => ({
  condition: fc.record(
    {
      path,
      op: fc.oneof(fc.constantFrom(...FILTER_OPS), fc.constantFrom('like', 'EQ', '')),
      value: fc.oneof(scalar, fc.array(scalar, { maxLength: 4 })),
      extra: scalar,
    },
    { requiredKeys: [] },
  ),
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('condition'),
    fc.record({ and: fc.array(tie('filter'), { maxLength: 3 }) }),
    fc.record({ or: fc.array(tie('filter'), { maxLength: 3 }) }),
    fc.record({ and: fc.array(tie('filter'), { maxLength: 2 }), path }, { requiredKeys: ['and'] }),
    scalar,
  ),
}));

function patch(body: Record<string, unknown>) {
  const text = jsonText(body);
  const request = {
    method: 'PATCH',
    target,
    headers: { 'x-private-api-token': world.gw.token, 'content-type': 'application/json' },
    body: Buffer.from(text),
  };
  return { text, request };
}

describe(`fuzzing the endpoint options (FUZZ_SEED=${FUZZ.seed} FUZZ_RUNS=${FUZZ.runs})`, () => {
  it('refuses every broken filter with a 422 changing nothing, and stores every valid one as sent', async () => {
    let [valid, broken] = [0, 0];
    await fc.assert(
      fc.asyncProperty(filter, async (candidate) => {
        const { text, request } = patch({ filter: candidate });
        if (jsonBreaks(schema, text, LIMITS.jsonDepth)) {
          broken += 1;
          const answer = await expectRefusedLeavingNothing(world, request, [422]);
          expect(answer.status).toBe(422);
          return;
        }
        valid += 1;
        const answer = await send(world, request);
        expect(answer.status, answer.text).toBe(200);
        const shown = (answer.body as { webhook: { filter?: unknown } }).webhook.filter;
        expect(shown ?? null).toEqual(JSON.parse(text).filter);
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs * 5, endOnFailure: false },
    );
    // Both kinds were generated: the property judged something either way.
    expect(valid).toBeGreaterThan(0);
    expect(broken).toBeGreaterThan(0);
  }, 300_000);

  it('takes a retry schedule within the bounds and refuses the rest with a 422', async () => {
    const schedule = fc.oneof(
      fc.array(fc.integer({ min: -5, max: 200_000 }), { maxLength: 25 }),
      fc.array(fc.integer({ min: 1, max: 86_400 }), { maxLength: 19 }),
      fc.constant(null),
      scalar,
    );
    await fc.assert(
      fc.asyncProperty(schedule, async (delays) => {
        const { text, request } = patch({ retry_schedule: delays });
        if (jsonBreaks(schema, text, LIMITS.jsonDepth)) {
          await expectRefusedLeavingNothing(world, request, [422]);
          return;
        }
        // Judged by what was sent: a scalar such as Infinity goes out as JSON's null.
        const list = (JSON.parse(text) as { retry_schedule: number[] | null }).retry_schedule;
        const withinBounds = list === null || (list.length + 1 <= 20 && list.every((s) => s <= 86_400));
        const answer = withinBounds
          ? await send(world, request)
          : await expectRefusedLeavingNothing(world, request, [422]);
        expect(answer.status, answer.text).toBe(withinBounds ? 200 : 422);
      }),
      { seed: FUZZ.seed + 1, numRuns: FUZZ.runs * 2, endOnFailure: false },
    );
  }, 300_000);
});
