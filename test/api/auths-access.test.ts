// Black-box HTTP tests of who reaches v2 auths (contract section 4 "v2 Auths"; docs/design.md section 9
// for the paths) against a real gateway on a temp SQLite file: the API token from the header, the
// query or the body, 401 on every route without a valid one, and another account's companies and
// auths answered 404 like missing ones, with nothing stored or changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAnsweredAsMissing, expectErrorShape, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import {
  authHelpers,
  authPath,
  authsPath,
  expectAuthAnswer,
  secret,
  startAuthsGateway,
  type Body,
} from './auth-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { created, refused, storedState } = authHelpers(() => gw);

// The secrets this file sends reach no log line and no event either (auths-create.test.ts proves it of its own).
beforeAll(async () => {
  ({ gw, close } = await startAuthsGateway({ checkSecretsOnClose: true }));
});
afterAll(() => close?.());

function channelCount(): number {
  return (gw.gateway.store.db.prepare('SELECT count(*) AS n FROM channels').get() as { n: number }).n;
}

// ---------------------------------------------------------------------------------------------
// Tokens, accounts

describe('401 without a valid token', () => {
  it('reads the token from the header, the query or the body', async () => {
    const company = await newCompany(gw);
    const viaHeader = await gw.request('GET', authsPath(company));
    expect(viaHeader.status).toBe(200);
    const viaQuery = await gw.request(
      'GET',
      `${authsPath(company)}?private_api_token=${encodeURIComponent(gw.token)}`,
      { token: null },
    );
    expect(viaQuery.status).toBe(200);
    const viaBody = await gw.request('POST', authsPath(company), {
      token: null,
      json: { private_api_token: gw.token, provider: 'chat_d' },
    });
    expectAuthAnswer(viaBody, 201);
    const viaGetBody = await gw.request('GET', authsPath(company), {
      token: null,
      json: { private_api_token: gw.token },
    });
    expect(viaGetBody.body.auths).toHaveLength(1);
  });

  it.each<[string, string, Body | undefined]>([
    ['GET', '/api/p2/auths', undefined],
    ['GET', '', undefined],
    ['POST', '', { provider: 'chat_d' }],
    ['GET', '/1', undefined],
    ['DELETE', '/1', undefined],
    ['POST', '/1/confirm', {}],
    ['PUT', '/1/enable', { code: '1' }],
    ['PATCH', '/1/disable', {}],
  ])('%s %s without a token or with a wrong one stores nothing', async (method, suffix, json) => {
    const company = await newCompany(gw);
    const path = suffix.startsWith('/api') ? suffix : `${authsPath(company)}${suffix}`;
    const before = channelCount();
    expectErrorShape(await gw.request(method, path, { token: null, json }), 401, 'unauthorized');
    expectErrorShape(await gw.request(method, path, { token: 'gwk_wrong', json }), 401, 'unauthorized');
    expectErrorShape(
      await gw.request(method, `${path}?private_api_token=gwk_wrong`, { token: null, json }),
      401,
      'unauthorized',
    );
    expectErrorShape(
      await gw.request(method, path, { token: null, json: { ...json, private_api_token: 'gwk_wrong' } }),
      401,
      'unauthorized',
    );
    expect(channelCount()).toBe(before);
  });
});

describe("another account's company and auths are not found", () => {
  it('answers 404 like a missing id on every route and changes nothing', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_b', token: secret() });
    const stranger = await gw.createAccount('stranger');
    const routes: [string, string, Body | undefined][] = [
      ['GET', authsPath(company), undefined],
      ['POST', authsPath(company), { provider: 'chat_c', token: 't' }],
      ['GET', authPath(company, auth.id), undefined],
      ['DELETE', authPath(company, auth.id), undefined],
      ['POST', `${authPath(company, auth.id)}/confirm`, {}],
      ['PUT', `${authPath(company, auth.id)}/enable`, {}],
      ['PATCH', `${authPath(company, auth.id)}/disable`, {}],
    ];
    for (const [method, path, json] of routes) {
      const foreign = await refused(() => gw.request(method, path, { token: stranger, json }), 404, 'not_found');
      await expectAnsweredAsMissing(gw, foreign, method, path, company, { token: stranger, json });
    }
    // Their own company does not reach this auth either.
    const theirs = await newCompany(gw, {}, stranger);
    await refused(
      () => gw.request('PUT', `${authPath(theirs, auth.id)}/disable`, { token: stranger }),
      404,
      'not_found',
    );
    expect(storedState(auth.id)).toEqual({ state: 'enabled', deleted_at: null });
  });
});
