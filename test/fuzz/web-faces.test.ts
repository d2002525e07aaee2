import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  portalDeliveryListQuery,
  portalEmptyBody,
  portalReplayBody,
  portalWebhookCreateBody,
  portalWebhookUpdateBody,
} from '../../schemas/portal.js';
import type { Schema } from './bad-values.js';
import { expectRefusedLeavingNothing } from './expect-refused.js';
import { ADMIN_TOKEN, FUZZ, startFuzzGateway, type FuzzWorld, type WebSession } from './fuzz-gateway.js';
import type { DocumentedOperation } from './operations.js';
import { refusedRequests } from './refused-requests.js';
import { send, type FuzzRequest } from './send.js';

/**
 * The console's and the portal's routes (docs/console.md), fuzzed like the REST API: the session
 * exchanges (admin token, portal link), the session checks, and the portal's own API with broken
 * fields, bodies, queries, ids of another company, and missing or wrong cookies and CSRF tokens.
 * Each must be refused with a 4xx in the error shape, in time, with nothing stored or changed.
 * These routes are not in /openapi.json (a browser's, not a client's), so their list is here.
 */

/**
 * Statuses of routes that read a body (415 marks them so: their bodies are fuzzed too), and of those
 * that read none. Opening a console session answers 429 once an address sent too many wrong tokens.
 */
const SESSION_OPENING = [400, 401, 403, 413, 414, 415, 422, 429];
const SESSION_ROUTE = [400, 401, 403, 404, 409, 413, 414, 415, 422];
const SESSION_READ = [400, 401, 403, 404, 414];

const json = (schema: unknown) => schema as Schema;

/** The routes under test, as the fuzz suite's operations. */
const operations: DocumentedOperation[] = [
  {
    method: 'POST',
    path: '/console/session',
    security: 'none',
    statuses: SESSION_OPENING,
    body: { type: 'object', required: ['token'], properties: { token: { type: 'string', minLength: 1 } } },
  },
  { method: 'GET', path: '/console/session', security: 'console', statuses: SESSION_READ },
  { method: 'DELETE', path: '/console/session', security: 'console', statuses: SESSION_READ },
  {
    method: 'POST',
    path: '/portal/session',
    security: 'none',
    statuses: SESSION_OPENING,
    body: {
      type: 'object',
      required: ['token'],
      properties: { token: { type: 'string', minLength: 1, maxLength: 200 } },
    },
  },
  { method: 'GET', path: '/portal/session', security: 'portal', statuses: SESSION_READ },
  { method: 'DELETE', path: '/portal/session', security: 'portal', statuses: SESSION_READ },
  { method: 'GET', path: '/portal/api/webhooks', security: 'portal', statuses: SESSION_READ },
  {
    method: 'POST',
    path: '/portal/api/webhooks',
    security: 'portal',
    statuses: SESSION_ROUTE,
    body: json(portalWebhookCreateBody),
  },
  {
    method: 'PATCH',
    path: '/portal/api/webhooks/{id}',
    security: 'portal',
    statuses: SESSION_ROUTE,
    body: json(portalWebhookUpdateBody),
  },
  {
    method: 'POST',
    path: '/portal/api/webhooks/{id}/rotate_secret',
    security: 'portal',
    statuses: SESSION_ROUTE,
    body: json(portalEmptyBody),
  },
  {
    method: 'POST',
    path: '/portal/api/webhooks/{id}/test',
    security: 'portal',
    statuses: SESSION_ROUTE,
    body: json(portalEmptyBody),
  },
  {
    method: 'GET',
    path: '/portal/api/deliveries',
    security: 'portal',
    statuses: [...SESSION_READ, 422],
    query: json(portalDeliveryListQuery),
  },
  { method: 'GET', path: '/portal/api/deliveries/{deliveryId}', security: 'portal', statuses: SESSION_READ },
  {
    method: 'POST',
    path: '/portal/api/deliveries/{deliveryId}/replay',
    security: 'portal',
    statuses: SESSION_ROUTE,
    body: json(portalEmptyBody),
  },
  {
    method: 'POST',
    path: '/portal/api/replays',
    security: 'portal',
    statuses: SESSION_ROUTE,
    body: json(portalReplayBody),
  },
  { method: 'GET', path: '/portal/api/replays/{taskId}', security: 'portal', statuses: SESSION_READ },
  // The live stream: a refused request is answered; an accepted one would last (test/fuzz/event-stream.test.ts).
  { method: 'GET', path: '/portal/api/events/stream', security: 'portal', statuses: SESSION_READ },
];

let world: FuzzWorld;

/** Opens a session the way the page does, and answers what the browser then holds. */
async function openSession(target: string, token: string): Promise<WebSession> {
  const answer = await send(world, {
    method: 'POST',
    target,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ token })),
  });
  if (answer.status !== 201) throw new Error(`opening ${target} failed: ${answer.status} ${answer.text}`);
  const cookie = String(answer.headers['set-cookie']?.[0]).split(';')[0]!;
  return { cookie, csrf: (answer.body as { session: { csrf_token: string } }).session.csrf_token };
}

beforeAll(async () => {
  world = await startFuzzGateway();
  const link = await send(world, {
    method: 'POST',
    target: `/api/p2/companies/${world.own.company}/portal_sessions`,
    headers: { 'x-private-api-token': world.gw.token },
  });
  const linkToken = new URL((link.body as { portal_session: { url: string } }).portal_session.url).hash.slice(1);
  world.sessions = {
    console: await openSession('/console/session', ADMIN_TOKEN),
    portal: await openSession('/portal/session', linkToken),
  };
});
afterAll(() => world.gw.close());

/** Session openings that carry the right secret but come from another site's page: refused, nothing opened. */
function crossSiteOpenings(): fc.Arbitrary<FuzzRequest> {
  const from = fc.oneof(
    fc
      .constantFrom(
        'https://evil.example',
        'null',
        'http://127.0.0.1.evil.example',
        `http://localhost:${world.gw.gateway.port + 1}`,
      )
      .map((origin) => ({ origin })),
    fc.constantFrom('cross-site', 'same-site').map((site) => ({ 'sec-fetch-site': site })),
  );
  return from.map((headers) => ({
    method: 'POST',
    target: '/console/session',
    headers: { 'content-type': 'application/json', ...headers },
    body: Buffer.from(JSON.stringify({ token: ADMIN_TOKEN })),
  }));
}

describe(`fuzzing the console's and the portal's routes (FUZZ_SEED=${FUZZ.seed} FUZZ_RUNS=${FUZZ.runs})`, () => {
  it('refuses every broken request with a 4xx in the error shape, in time, storing nothing', async () => {
    for (const [index, op] of operations.entries()) {
      await fc.assert(
        fc.asyncProperty(refusedRequests(world, op), (request) =>
          expectRefusedLeavingNothing(world, request, op.statuses).then(() => undefined),
        ),
        { seed: FUZZ.seed + index, numRuns: FUZZ.runs, endOnFailure: false },
      );
    }
  }, 600_000);

  it('opens no console session for a page of another site, even with the admin token', async () => {
    await fc.assert(
      fc.asyncProperty(crossSiteOpenings(), async (request) => {
        const answer = await expectRefusedLeavingNothing(world, request, [403]);
        expect(answer.headers['set-cookie']).toBeUndefined();
      }),
      { seed: FUZZ.seed, numRuns: Math.min(FUZZ.runs, 20) },
    );
  });

  it('still holds both sessions afterwards: no refused request ended one', async () => {
    for (const face of ['console', 'portal'] as const) {
      const session = world.sessions![face];
      const answer = await send(world, {
        method: 'GET',
        target: `/${face}/session`,
        headers: { cookie: session.cookie },
      });
      expect(answer.status, answer.text).toBe(200);
      expect((answer.body as { session: { csrf_token: string } }).session.csrf_token).toBe(session.csrf);
    }
  });
});
