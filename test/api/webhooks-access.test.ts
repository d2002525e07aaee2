// Black-box HTTP tests of who may reach the company webhook endpoints (docs/design.md section 9: the
// token in the header, the query or the body; another account's companies answer 404 like ids that do
// not exist) against a real gateway on a temp SQLite file: every route refuses a missing or wrong
// token and a stranger, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAnsweredAsMissing, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import {
  expectHook,
  hookPath,
  hooksPath,
  startWebhooksGateway,
  webhookHelpers,
  type Body,
} from './webhook-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { createHook, rows, refused } = webhookHelpers(() => gw);

// No secret shown or stored here reaches a list, a show or the log (webhooks-update-delete-rotate.test.ts
// proves it of its own in a test).
beforeAll(async () => {
  ({ gw, close } = await startWebhooksGateway({ checkSecretsOnClose: true }));
});
afterAll(() => close?.());

// ---------------------------------------------------------------------------------------------
// Tokens and accounts

describe('401 without a valid token', () => {
  it('reads the token from the header, the query or the body', async () => {
    const company = await newCompany(gw);
    expect((await gw.request('GET', hooksPath(company))).status).toBe(200);
    expect(
      (
        await gw.request('GET', `${hooksPath(company)}?private_api_token=${encodeURIComponent(gw.token)}`, {
          token: null,
        })
      ).status,
    ).toBe(200);
    const viaBody = await gw.request('POST', hooksPath(company), {
      token: null,
      json: { private_api_token: gw.token, url: 'https://example.com/b' },
    });
    expectHook(viaBody, 201);
  });

  it.each<[string, string, Body | undefined]>([
    ['GET', '', undefined],
    ['POST', '', { url: 'https://example.com/x' }],
    ['GET', '/1', undefined],
    ['PUT', '/1', { active: false }],
    ['PATCH', '/1', { active: false }],
    ['DELETE', '/1', undefined],
    ['POST', '/1/rotate_secret', {}],
  ])('%s %s refuses a missing or wrong token and changes nothing', async (method, suffix, json) => {
    const company = await newCompany(gw);
    await createHook(company);
    const path = `${hooksPath(company)}${suffix.replace('/1', `/${rows(company)[0]!.id}`)}`;
    await refused(() => gw.request(method, path, { token: null, json }), 401, 'unauthorized');
    await refused(() => gw.request(method, path, { token: 'gwk_wrong', json }), 401, 'unauthorized');
    await refused(
      () => gw.request(method, `${path}?private_api_token=gwk_wrong`, { token: null, json }),
      401,
      'unauthorized',
    );
    await refused(
      () => gw.request(method, path, { token: null, json: { ...json, private_api_token: 'gwk_wrong' } }),
      401,
      'unauthorized',
    );
  });
});

describe("another account's company and endpoints are not found", () => {
  it('answers 404 like a missing id on every route and changes nothing', async () => {
    const company = await newCompany(gw, { webhook_url: 'https://example.com/v1' });
    const hook = await createHook(company);
    const stranger = await gw.createAccount('stranger');
    const routes: [string, string, Body | undefined][] = [
      ['GET', hooksPath(company), undefined],
      ['POST', hooksPath(company), { url: 'https://evil.example.com' }],
      ['GET', hookPath(company, hook.id), undefined],
      ['PUT', hookPath(company, hook.id), { url: 'https://evil.example.com' }],
      ['PATCH', hookPath(company, hook.id), { active: false }],
      ['DELETE', hookPath(company, hook.id), undefined],
      ['POST', `${hookPath(company, hook.id)}/rotate_secret`, {}],
    ];
    for (const [method, path, json] of routes) {
      const foreign = await refused(() => gw.request(method, path, { token: stranger, json }), 404, 'not_found');
      expect(foreign.text).not.toContain(hook.secret!);
      await expectAnsweredAsMissing(gw, foreign, method, path, company, { token: stranger, json });
    }
    // Nor through their own company.
    const theirs = await newCompany(gw, {}, stranger);
    await refused(
      () => gw.request('POST', `${hookPath(theirs, hook.id)}/rotate_secret`, { token: stranger }),
      404,
      'not_found',
    );
    // And an endpoint of another company of the same account is not found under this one.
    const sibling = await newCompany(gw);
    await refused(() => gw.request('DELETE', hookPath(sibling, hook.id)), 404, 'not_found');
  });
});
