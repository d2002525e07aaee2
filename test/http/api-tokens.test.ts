// Where the API token is read (header, query, JSON or form body), how accounts are kept apart, and
// that no token reaches the log: through HTTP alone, so it runs against a cluster too. The walk of
// every registered route and the digests at rest are in test/http/auth.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let companyId: number;
let channelId: number;

beforeAll(async () => {
  gw = await startTestGateway();
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Owned' } })).body.data.external_id;
  channelId = (
    await gw.request('POST', `/p1/companies/${companyId}/channels`, {
      json: { provider: 'chat_b', token: 'bot-secret' },
    })
  ).body.data.external_id;
});
afterAll(() => gw.close());

describe('where the token is read', () => {
  it('accepts the X-Private-Api-Token header', async () => {
    expect((await gw.request('GET', '/p1/companies')).status).toBe(200);
  });

  it('accepts the private_api_token query parameter', async () => {
    const res = await gw.request('GET', `/p1/companies?private_api_token=${encodeURIComponent(gw.token)}`, {
      token: null,
    });
    expect(res.status).toBe(200);
  });

  it('accepts the private_api_token field of a JSON body, and does not treat it as input', async () => {
    const res = await gw.request('POST', '/p1/companies', {
      token: null,
      json: { private_api_token: gw.token, name: 'Json body' },
    });
    expect(res.status).toBe(201);
  });

  it('accepts the private_api_token field of a form body', async () => {
    const form = new URLSearchParams({ private_api_token: gw.token, name: 'Form body' });
    const res = await gw.request('POST', '/p1/companies', { token: null, form });
    expect(res.status).toBe(201);
  });

  it('accepts a JSON body token on GET, as the contract samples send', async () => {
    const res = await gw.request('GET', '/p1/companies', {
      token: null,
      json: { private_api_token: gw.token, per: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.companies).toHaveLength(1);
  });

  it('prefers the header: a wrong header token is refused even with a right body token', async () => {
    const res = await gw.request('POST', '/p1/companies', {
      token: 'gwk_wrong',
      json: { private_api_token: gw.token, name: 'x' },
    });
    expectErrorShape(res, 401, 'unauthorized');
  });

  it('answers 401, not 400, when the body that should hold the token is malformed', async () => {
    const res = await gw.request('POST', '/p1/companies', { token: null, json: '{"private_api_token": ' });
    expect(expectErrorShape(res, 401, 'unauthorized')[0]!.detail).toMatch(/could not be read/);
  });

  it('refuses a token given as a non-string body field', async () => {
    const res = await gw.request('POST', '/p1/companies', {
      token: null,
      json: { private_api_token: 12345, name: 'x' },
    });
    expectErrorShape(res, 401, 'unauthorized');
  });
});

describe('accounts are isolated', () => {
  it("answers another account's company exactly like a missing one", async () => {
    const other = await gw.createAccount('intruder');
    const own = await gw.request('POST', '/p1/companies', { token: other, json: { name: 'Theirs' } });
    expect(own.status).toBe(201);

    const list = await gw.request('GET', '/p1/companies', { token: other });
    expect(list.body.data.companies.map((c: { name: string }) => c.name)).toEqual(['Theirs']);

    const foreign = await gw.request('PUT', `/p1/companies/${companyId}`, { token: other, json: { name: 'hijack' } });
    const missing = await gw.request('PUT', '/p1/companies/999999', { token: other, json: { name: 'hijack' } });
    expectErrorShape(foreign, 404, 'not_found');
    expectErrorShape(missing, 404, 'not_found');
    expect(foreign.body.errors[0].detail.replace(String(companyId), 'N')).toBe(
      missing.body.errors[0].detail.replace('999999', 'N'),
    );

    for (const [method, path] of [
      ['GET', `/p1/companies/${companyId}/channels`],
      ['POST', `/p1/companies/${companyId}/channels`],
      ['PUT', `/p1/companies/${companyId}/channels/${channelId}`],
      ['DELETE', `/p1/companies/${companyId}/channels/${channelId}`],
    ] as const) {
      const res = await gw.request(method, path, {
        token: other,
        json: method === 'GET' || method === 'DELETE' ? undefined : { provider: 'chat_c', token: 't' },
      });
      expectErrorShape(res, 404, 'not_found');
    }
    const channels = await gw.request('GET', `/p1/companies/${companyId}/channels`);
    expect(channels.body.data.channels).toEqual([{ external_id: channelId, provider: 'chat_b' }]);
  });
});

describe('tokens in the log', () => {
  it('never logs a token, the API token in a query included', async () => {
    await gw.request('GET', `/p1/companies?private_api_token=${encodeURIComponent(gw.token)}`, { token: null });
    expect(gw.logText()).toContain('"path":"/p1/companies"');
    expect(gw.logText()).not.toContain(gw.token);
    expect(gw.logText()).not.toContain('bot-secret');
  });
});
