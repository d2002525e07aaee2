// Black-box HTTP tests of who reaches which v1 company (contract section 4 "v1 Companies", section 5
// Authentication, section 7 the 401 body): the ids a PUT answers 404 for, another account's company
// among them, and the token in each place it is accepted, never logged. It runs against one daemon and,
// merged by the front, against a 3-shard cluster (vitest.cluster.config.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, type TestGateway } from '../helpers/gateway.js';
import { companyHelpers, startCompaniesGateway } from './company-fixtures.js';

let t: TestGateway;
let close: () => Promise<void>;
const { create, getCompany, rejected } = companyHelpers(() => t);

beforeAll(async () => {
  ({ gw: t, close } = await startCompaniesGateway());
});
afterAll(() => close?.());

describe('PUT /p1/companies/<ID>', () => {
  describe('404 not_found', () => {
    it.each(['999999999', 'abc', '0', '-1', '1.5', '1e3', '0x10', '99999999999999999999', '%20'])(
      'for the id %s',
      async (id) => {
        const res = await rejected(() => t.request('PUT', `/p1/companies/${id}`, { json: { name: 'Ghost' } }));
        expectErrorShape(res, 404, 'not_found');
      },
    );

    it("for another account's company, exactly like a missing id, and leaves it unchanged", async () => {
      const other = await t.createAccount('intruder-target');
      const theirs = await create({ name: 'Theirs', phone: '1' }, other);
      const before = await getCompany(theirs, other);

      const attack = await t.request('PUT', `/p1/companies/${theirs}`, { json: { name: 'Stolen', hidden: true } });
      const [entry] = expectErrorShape(attack, 404, 'not_found');
      const missing = await t.request('PUT', '/p1/companies/999999998', { json: { name: 'Stolen', hidden: true } });
      const [missingEntry] = expectErrorShape(missing, 404, 'not_found');
      expect(Object.keys(entry!).sort()).toEqual(Object.keys(missingEntry!).sort());
      expect(entry!.detail.replace(String(theirs), 'ID')).toBe(missingEntry!.detail.replace('999999998', 'ID'));
      expect(attack.text).not.toContain('Theirs');

      expect(await getCompany(theirs, other)).toEqual(before);
      expect(await getCompany(theirs)).toBeUndefined();
    });

    it('before looking at the body', async () => {
      const res = await t.request('PUT', '/p1/companies/999999997', { json: { name: 5 } });
      expectErrorShape(res, 404, 'not_found');
    });
  });
});

describe('token placement', () => {
  // The list test asks for a page of one company: the account has one whatever ran before it.
  beforeAll(async () => {
    await create({ name: 'Listed' });
  });

  it('accepts the X-Private-Api-Token header', async () => {
    const res = await t.request('GET', '/p1/companies', { token: null, headers: { 'X-Private-Api-Token': t.token } });
    expect(res.status, res.text).toBe(200);
  });

  it('accepts the query parameter on a list', async () => {
    const res = await t.request('GET', `/p1/companies?per=1&private_api_token=${encodeURIComponent(t.token)}`, {
      token: null,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.companies).toHaveLength(1);
  });

  it('accepts the query parameter on create', async () => {
    const res = await t.request('POST', `/p1/companies?private_api_token=${encodeURIComponent(t.token)}`, {
      token: null,
      json: { name: 'Q' },
    });
    expect(res.status, res.text).toBe(201);
    expect((await getCompany(res.body.data.external_id))?.name).toBe('Q');
  });

  it('accepts the JSON body field and does not treat it as a company field', async () => {
    const res = await t.request('POST', '/p1/companies', {
      token: null,
      json: { private_api_token: t.token, name: 'J' },
    });
    expect(res.status, res.text).toBe(201);
    expect(await getCompany(res.body.data.external_id)).toEqual({
      external_id: res.body.data.external_id,
      name: 'J',
      phone: null,
      description: null,
      webhook_url: null,
      hidden: false,
    });
  });

  it('accepts the form body field', async () => {
    const form = new URLSearchParams({ private_api_token: t.token, name: 'F' });
    const res = await t.request('POST', '/p1/companies', { token: null, form });
    expect(res.status, res.text).toBe(201);
    expect((await getCompany(res.body.data.external_id))?.name).toBe('F');
  });

  it('accepts the body field on update', async () => {
    const id = await create({ name: 'Body token update' });
    const json = await t.request('PUT', `/p1/companies/${id}`, {
      token: null,
      json: { private_api_token: t.token, phone: '42' },
    });
    expect(json.status, json.text).toBe(200);
    const form = await t.request('PUT', `/p1/companies/${id}`, {
      token: null,
      form: new URLSearchParams({ private_api_token: t.token, hidden: 'true' }),
    });
    expect(form.status, form.text).toBe(200);
    expect(await getCompany(id)).toMatchObject({ phone: '42', hidden: true });
  });

  it('answers 401 with the contract body when no token is anywhere', async () => {
    const res = await rejected(() => t.request('POST', '/p1/companies', { token: null, json: { name: 'Nobody' } }));
    const [entry] = expectErrorShape(res, 401, 'unauthorized');
    expect(res.body.errors[0].title).toBe('Unauthorized');
    expect(entry!.detail.length).toBeGreaterThan(0);
  });

  it('answers 401 for a wrong token in the body or the query', async () => {
    expectErrorShape(
      await rejected(() =>
        t.request('POST', '/p1/companies', { token: null, json: { private_api_token: 'wrong', name: 'X' } }),
      ),
      401,
      'unauthorized',
    );
    expectErrorShape(
      await rejected(() =>
        t.request('POST', '/p1/companies?private_api_token=wrong', { token: null, json: { name: 'X' } }),
      ),
      401,
      'unauthorized',
    );
  });

  it('never writes the token to the log', async () => {
    await t.request('POST', `/p1/companies?private_api_token=${encodeURIComponent(t.token)}`, {
      token: null,
      json: { name: 'Log' },
    });
    await t.request('POST', '/p1/companies', { token: null, json: { private_api_token: t.token, name: 'Log' } });
    expect(t.logText()).not.toContain(t.token);
  });
});
