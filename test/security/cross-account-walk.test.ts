// Every operation of /openapi.json, and every console and portal route, called by one account with
// another account's ids (and the other way round): each refuses in the contract's error shape, no
// answer shows anything of the other account, and no row of the store and no event changes. The
// operations are read from the document and the routers, so a new route is walked as soon as it exists.
// Against a cluster (GATEWAY_TEST_TARGET=cluster) through its front, for two accounts whose companies
// live on different shards and for two on the same shard; no row of any shard's store changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudBody, postCloud, postConnector } from '../helpers/callbacks.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { TO_RECEIVERS, startTestGateway, testTarget, type TestGateway, type TestResponse } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { giveResources, type AccountLabel, type AccountResources } from './walk-accounts.js';
import {
  asUnknown,
  buildRequest,
  foreignVariants,
  isForeign,
  walkOperations,
  type WalkOperation,
} from './walk-operations.js';
import { expectNothingOf, expectRefusal, sendBuilt } from './walk-requests.js';
import { publishedCounts, settled, storeDigest, type StoreDigest } from './walk-state.js';
import { walkWebRoutes } from './walk-web.js';

let gw: TestGateway;
let fake: FakeProvider;
let receiver: Receiver;
const accounts = new Map<AccountLabel, AccountResources>();
let operations: WalkOperation[];
let before: { digest: StoreDigest; counts: ReturnType<typeof publishedCounts>; providerCalls: number };

/**
 * The pairs walked, each both ways: on one daemon A and B; on a cluster C and B, their companies
 * on shards 0 and 1, and A and C, both on shard 0. Only companies, channels and auths take ids
 * that carry their shard; the rest count per shard, so the same number on another shard names
 * the caller's own resource, not the other account's. C is given its resources after A on shard 0,
 * which puts its per-shard ids above B's on shard 1 (checked before the walk: no id of one account
 * of a pair is an id of the other's).
 */
const PAIRS: { name: string; first: AccountLabel; second: AccountLabel }[] =
  testTarget() === 'cluster'
    ? [
        { name: 'companies on different shards', first: 'C', second: 'B' },
        { name: 'companies on the same shard', first: 'A', second: 'C' },
      ]
    : [{ name: 'two accounts', first: 'A', second: 'B' }];

/** Each account's shard on a cluster, in the order they are given their resources. */
const SHARDS: [AccountLabel, number][] =
  testTarget() === 'cluster'
    ? [
        ['A', 0],
        ['C', 0],
        ['B', 1],
      ]
    : [
        ['A', 0],
        ['B', 0],
      ];

/** The resources an integer id names. */
const NUMBERED = [
  'company',
  'channel',
  'auth',
  'conversation',
  'contact',
  'message',
  'attachment',
  'webhook',
  'job',
  'tokenId',
] as const;

/** Writes that name no id at all: they act on the caller's own account, so the walk has nothing foreign to put in them. */
const OWN_ACCOUNT_WRITES = new Map([['POST /p1/companies', 'creates a company of the caller']]);

beforeAll(async () => {
  fake = await new FakeProvider().start();
  receiver = await startReceiver(() => []);
  gw = await startTestGateway({ ...TO_RECEIVERS, ...fake.env() });
  for (const [label, shard] of SHARDS) {
    const [token, accountName] = label === 'A' ? [gw.token, 'default'] : [await gw.createAccount(label), label];
    accounts.set(label, await giveResources(gw, fake, receiver, { label, token, accountName, shard }));
  }
  for (const { first, second } of PAIRS) {
    const [x, y] = [accounts.get(first)!, accounts.get(second)!];
    for (const kind of NUMBERED) expect(x[kind], `${first}'s and ${second}'s ${kind}`).not.toBe(y[kind]);
  }
  const document = (await gw.request('GET', '/openapi.json', { token: null })).body;
  operations = walkOperations(document);
  await settled(gw);
  before = { digest: storeDigest(gw), counts: publishedCounts(gw), providerCalls: fake.calls.length };
}, 240_000);
afterAll(async () => {
  await gw?.close();
  await receiver?.close();
  await fake?.close();
});

const label = (op: WalkOperation) => `${op.method} ${op.path}`;

/** What an answer to another account's id shares with the answer to an id of nothing: status, codes and fields named. */
const shapeOf = (res: TestResponse) => ({
  status: res.status,
  errors: ((res.body?.errors ?? []) as { code: string; source?: { pointer: string } }[]).map((e) => [
    e.code,
    e.source?.pointer,
  ]),
});

/**
 * Calls every foreign variant of `op` as `caller`, and the same request with ids of nothing: the
 * answers must agree (another account's id is a missing one), show nothing of `target`, and refuse.
 * A foreign id in the path or in company_id is a 404 (or 403); one elsewhere in the input (an
 * attachment, a template, an endpoint filter) is refused as an unknown one is, a 422 naming the
 * field included; a GET filtering by it answers its list without the other account's rows.
 */
async function walkApiOperation(op: WalkOperation, caller: AccountResources, target: AccountResources) {
  const variants = foreignVariants(op);
  expect(variants.length, `${label(op)} has no variant`).toBeGreaterThan(0);
  for (const variant of variants) {
    const built = buildRequest(op, variant, caller, target);
    const what = `${caller.label} → ${label(op)} as ${built.path} ${JSON.stringify(built.input ?? {})}`;
    const res = await sendBuilt(gw, op, built, { token: caller.token }, caller);
    const unknown = await sendBuilt(
      gw,
      op,
      buildRequest(op, asUnknown(variant), caller, target),
      { token: caller.token },
      caller,
    );
    expectNothingOf(res, target, what, what);
    expect(shapeOf(res), `${what}: an unknown id answered ${unknown.status} ${unknown.text}`).toEqual(shapeOf(unknown));
    // Under a company path, company_id only repeats the path and is compared with it before any
    // lookup: another number there is a 422 whoever owns it (the unknown id's answer is the same).
    const companyPath = op.slots.some((s) => s.where === 'path' && s.kind === 'company');
    const central = op.slots.some(
      (s) => isForeign(variant, s) && (s.where === 'path' || (s.name === 'company_id' && !companyPath)),
    );
    if (central) expectRefusal(res, [403, 404], what);
    else if (op.method === 'GET' && res.status === 200) expect(res.body, what).toEqual(unknown.body);
    else {
      expectRefusal(res, [403, 404, 422], what);
      // A 422 must be about the foreign id, not about the rest of the walk's input.
      const foreignFields = op.slots
        .filter((s) => s.where === 'input' && isForeign(variant, s))
        .map((s) => `/${s.name}`);
      const pointers = (res.body.errors as { source?: { pointer: string } }[]).map((e) => e.source?.pointer ?? '');
      if (res.status === 422)
        expect(
          pointers.some((p) => foreignFields.some((f) => p.startsWith(f))),
          `${what}: ${res.text}`,
        ).toBe(true);
    }
  }
}

/** Calls an operation that names no account's id: a GET answers the caller's own, without the other account's. */
async function walkOwnOperation(op: WalkOperation, caller: AccountResources, target: AccountResources) {
  if (op.method !== 'GET') {
    expect(
      OWN_ACCOUNT_WRITES.has(label(op)),
      `${label(op)} names no id: add it to OWN_ACCOUNT_WRITES or give it an id`,
    ).toBe(true);
    return;
  }
  const built = buildRequest(op, {}, caller, target);
  const res = await sendBuilt(gw, op, built, { token: caller.token }, caller);
  expect(res.status, `${caller.label} → ${label(op)}: ${res.text}`).toBe(200);
  expectNothingOf(res, target, `${caller.label} → ${label(op)}`);
}

describe('the generated walk', () => {
  it('knows every path parameter of the document and walks API, admin and public operations', () => {
    const byAuth = (auth: string) => operations.filter((op) => op.auth === auth).length;
    expect(byAuth('api')).toBeGreaterThanOrEqual(40);
    expect(byAuth('admin')).toBeGreaterThanOrEqual(15);
    expect(byAuth('none')).toBeGreaterThanOrEqual(7);
    expect(operations.map(label)).toContain('GET /api/p2/conversations/{id}/messages/{messageId}');
    for (const op of [
      'PUT /p1/companies/{companyId}/conversations/{id}/note',
      'PUT /p1/companies/{companyId}/conversations/{id}/assign',
      'GET /api/p2/providers',
      'GET /api/p2/companies/{companyId}/events/stream',
      'POST /api/p2/conversations/{id}/messages/{messageId}/reactions',
      'DELETE /api/p2/conversations/{id}/messages/{messageId}/reactions',
      'PATCH /api/p2/conversations/{id}/messages/{messageId}',
      'POST /api/p2/conversations/{id}/read',
    ]) {
      expect(operations.map(label)).toContain(op);
    }
  });

  describe.each(PAIRS)('$first and $second, $name', ({ first, second }) => {
    const pair = () => [accounts.get(first)!, accounts.get(second)!] as const;

    for (const forward of [true, false]) {
      const direction = forward ? `${second} with ${first}` : `${first} with ${second}`;
      it(`${direction}'s ids: every API-token operation answers 404 or 403 in the error shape`, async () => {
        const [x, y] = pair();
        const [caller, target] = forward ? [y, x] : [x, y];
        const api = operations.filter((op) => op.auth === 'api');
        for (const op of api) {
          if (op.slots.length === 0) await walkOwnOperation(op, caller, target);
          else await walkApiOperation(op, caller, target);
        }
      });
    }

    it("an API token never opens an admin operation, with the other account's ids in it: 401", async () => {
      const [a, b] = pair();
      const admin = operations.filter((op) => op.auth === 'admin');
      for (const op of admin) {
        const built = buildRequest(
          op,
          Object.fromEntries(op.slots.map((s) => [`${s.where}:${s.name}`, 'foreign'])),
          b,
          a,
        );
        const res = await sendBuilt(gw, op, built, { token: b.token }, b);
        const what = `${label(op)} as ${built.path} with ${b.label}'s API token`;
        expectRefusal(res, [401], what);
        expectNothingOf(res, a, what, what);
        // Nor does its portal session, presented as the console's cookie (the admin API's other credential).
        const cookie = { cookie: `gw_console=${b.portal.token}`, 'x-csrf-token': b.portal.csrf };
        const bySession = await sendBuilt(gw, op, built, { token: null, headers: cookie }, b);
        expectRefusal(bySession, [401], `${what} as a console session`);
      }
    });

    it("public operations refuse the other account's ids and the caller's own secrets", async () => {
      const [a, b] = pair();
      for (const op of operations.filter((o) => o.auth === 'none')) {
        if (op.slots.length === 0) {
          // Health, metrics and this document: no id to put in, and nothing of an account in the answer.
          const res = await sendBuilt(gw, op, buildRequest(op, {}, b, a), { token: b.token }, b);
          expectNothingOf(res, a, label(op));
          continue;
        }
        const capability = op.slots.every((s) => s.kind === 'storageKey' || s.kind === 'fileName');
        // An attachment's URL is its own capability (docs/decisions.md): all of A's URL opens A's file
        // by design; half of A's and half of B's must not.
        const variants = foreignVariants(op).filter((v) => !capability || !op.slots.every((s) => isForeign(v, s)));
        expect(variants.length, label(op)).toBeGreaterThan(0);
        for (const variant of variants) {
          const built = buildRequest(op, variant, b, a);
          const res: TestResponse = await sendBuilt(gw, op, built, { token: b.token }, b);
          const what = `${b.label} → ${label(op)} as ${built.path} ${JSON.stringify(built.input ?? {})}`;
          expectRefusal(res, [401, 403, 404], what);
          expectNothingOf(res, a, what, what);
        }
      }
    });

    it("a provider callback signed with the caller's own channel secrets is refused on the other account's channels", async () => {
      const [a, b] = pair();
      const text = {
        from: '4915112345678',
        id: 'wamid.walk',
        timestamp: '1700000000',
        type: 'text',
        text: { body: 'walk' },
      };
      const cloud = await postCloud(gw, a.auth, cloudBody([text]), b.cloudSecret);
      expectRefusal(cloud, [401], `${b.label}'s cloud signature on ${a.label}'s chat_a_business auth`);
      const state = JSON.stringify({ type: 'state', state: 'disabled' });
      const connector = await postConnector(gw, 'chat_a', a.channel, state, b.connectorSecret);
      expectRefusal(connector, [401], `${b.label}'s connector signature on ${a.label}'s chat_a channel`);
    });

    it(`the console and the portal: no session, and a portal session of ${second}, reach nothing of ${first}`, async () => {
      const [a, b] = pair();
      await walkWebRoutes(gw, b, a);
    });
  });

  it('changed no row of any store, published nothing and called no provider', async () => {
    await settled(gw);
    expect(storeDigest(gw)).toEqual(before.digest);
    expect(publishedCounts(gw)).toEqual(before.counts);
    expect(fake.calls.length).toBe(before.providerCalls);
  });
});
