import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../helpers/pipeline.js';
import { expectRefusedLeavingNothing } from './expect-refused.js';
import { FUZZ, startFuzzGateway, type FuzzWorld } from './fuzz-gateway.js';
import { send } from './send.js';

/**
 * The live event stream's own input, the Last-Event-ID header, generated: any text, ids shaped
 * like event ids that name nothing, another company's event ids (of this account and of another)
 * and overlong ones. Each is refused with the 409 in the error shape, answered in time, nothing
 * changed, by the API's route and the portal's alike; only an event kept for the company resumes
 * (its 200 lasts, so it is checked once, by its first bytes). The route's paths, tokens and queries
 * are fuzzed with every other operation (test/fuzz/api.test.ts, web-faces.test.ts).
 */

let world: FuzzWorld;
let portalCookie: string;
/** Event ids of other companies: account A's other company, and account B's. */
let foreignIds: string[];
let ownId: string;

/** A kept event of `companyId` (watched, as by a stream), written as the gateway writes one; answers its id. */
const keptEvent = (companyId: number): string => {
  world.gw.store.eventLog.watch(companyId, Date.now());
  return emitEvent(world.gw.store, companyId).id;
};

beforeAll(async () => {
  world = await startFuzzGateway();
  const sibling = await send(world, {
    method: 'POST',
    target: '/p1/companies',
    headers: { 'x-private-api-token': world.gw.token, 'content-type': 'application/json' },
    body: Buffer.from('{"name":"Sibling Co"}'),
  });
  foreignIds = [
    keptEvent((sibling.body as { data: { external_id: number } }).data.external_id),
    keptEvent(world.foreign.company),
  ];
  ownId = keptEvent(world.own.company);
  const link = await send(world, {
    method: 'POST',
    target: `/api/p2/companies/${world.own.company}/portal_sessions`,
    headers: { 'x-private-api-token': world.gw.token },
  });
  const token = new URL((link.body as { portal_session: { url: string } }).portal_session.url).hash.slice(1);
  const session = await send(world, {
    method: 'POST',
    target: '/portal/session',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ token })),
  });
  portalCookie = String(session.headers['set-cookie']?.[0]).split(';')[0]!;
});
afterAll(() => world.gw.close());

/** Header values Node sends as given: visible ASCII and spaces inside, nothing that trims away. */
const headerText = (maxLength: number) =>
  fc
    .string({ minLength: 1, maxLength, unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) })
    .map((s) => s.trim())
    .filter((s) => s !== '');

function lastEventIds(): fc.Arbitrary<string> {
  return fc.oneof(
    headerText(40),
    headerText(64).map((s) => `evt_${s}`),
    fc.stringMatching(/^evt_[A-Za-z0-9]{1,64}$/),
    fc.integer({ min: 1, max: 10_000 }).map((n) => `evt_${'A'.repeat(n)}`),
    fc.constantFrom(...foreignIds, `${ownId}x`, ownId.slice(0, -1), ownId.toLowerCase(), ` ${ownId}x`),
  );
}

const faces = (): { target: string; headers: Record<string, string> }[] => [
  {
    target: `/api/p2/companies/${world.own.company}/events/stream`,
    headers: { 'x-private-api-token': world.gw.token },
  },
  { target: '/portal/api/events/stream', headers: { cookie: portalCookie } },
];

describe(`fuzzing Last-Event-ID of the live stream (FUZZ_SEED=${FUZZ.seed} FUZZ_RUNS=${FUZZ.runs})`, () => {
  it('refuses every id that is not a kept event of the company with a 409 in the error shape, changing nothing', async () => {
    for (const face of faces()) {
      await fc.assert(
        fc.asyncProperty(
          lastEventIds().filter((id) => id !== ownId),
          async (id) => {
            const answer = await expectRefusedLeavingNothing(
              world,
              { method: 'GET', target: face.target, headers: { ...face.headers, 'last-event-id': id } },
              [409],
            );
            expect((answer.body as { errors: { code: string }[] }).errors[0]!.code).toBe('conflict');
          },
        ),
        { seed: FUZZ.seed, numRuns: FUZZ.runs },
      );
    }
  });

  it("resumes after the company's own kept event, on both faces", async () => {
    for (const face of faces()) {
      const response = await fetch(`${world.gw.baseUrl}${face.target}`, {
        headers: { ...face.headers, 'last-event-id': ownId },
      });
      expect(response.status).toBe(200);
      const first = await response.body!.getReader().read();
      expect(new TextDecoder().decode(first.value)).toBe(': stream open\n\n');
      await response.body!.cancel().catch(() => undefined);
    }
  });
});
