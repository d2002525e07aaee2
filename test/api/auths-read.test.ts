// Black-box HTTP tests of listing and reading v2 auths (contract section 4 "v2 Auths"; docs/design.md
// section 9 for the paths) against a real gateway on a temp SQLite file: a company's live auths and
// their pages, the account's auths over all its companies, and one auth by id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHS_MAX_PER_PAGE, authListResponse } from '../../schemas/v2/auths.js';
import { expectErrorShape, failingFields, type TestGateway } from '../helpers/gateway.js';
import { compileSchema } from '../helpers/schemas.js';
import { newCompany } from '../helpers/seed.js';
import {
  authHelpers,
  authPath,
  authsPath,
  expectAuthAnswer,
  secret,
  startAuthsGateway,
  type Auth,
} from './auth-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { create, created } = authHelpers(() => gw);

// The secrets this file sends reach no log line and no event either (auths-create.test.ts proves it of its own).
beforeAll(async () => {
  ({ gw, close } = await startAuthsGateway({ checkSecretsOnClose: true }));
});
afterAll(() => close?.());

const validateListResponse = compileSchema(authListResponse);

// ---------------------------------------------------------------------------------------------
// Lists

describe('GET /api/p2/companies/:companyId/auths', () => {
  let company: number;
  let ids: number[];

  beforeAll(async () => {
    company = await newCompany(gw);
    ids = [];
    for (const body of [
      { provider: 'chat_b', token: secret() },
      { provider: 'chat_c', token: secret() },
      { provider: 'chat_d' },
      { provider: 'social_b', token: secret() },
      { provider: 'social_a', token: secret() },
    ]) {
      ids.push((await created(company, body)).id);
    }
  });

  const list = (query = '', options = {}) => gw.request('GET', `${authsPath(company)}${query}`, options);

  it('lists live auths by id with meta of integers, 25 per page by default', async () => {
    const res = await list();
    expect(res.status, res.text).toBe(200);
    expect(validateListResponse(res.body), JSON.stringify(validateListResponse.errors)).toBe(true);
    expect(res.body.auths.map((a: Auth) => a.id)).toEqual(ids);
    expect(res.body.meta).toEqual({ page: 1, entries_count: 5, per_page: 25 });
  });

  it('pages with page and per_page (query, and a JSON body on GET)', async () => {
    const second = await list('?page=2&per_page=2');
    expect(second.body.auths.map((a: Auth) => a.id)).toEqual(ids.slice(2, 4));
    expect(second.body.meta).toEqual({ page: 2, entries_count: 5, per_page: 2 });
    const third = await list('', { json: { page: 3, per_page: 2 } });
    expect(third.body.auths.map((a: Auth) => a.id)).toEqual(ids.slice(4));
    expect(third.body.meta).toEqual({ page: 3, entries_count: 5, per_page: 2 });
    const past = await list('?page=9&per_page=2');
    expect(past.body).toEqual({ auths: [], meta: { page: 9, entries_count: 5, per_page: 2 } });
    const max = await list(`?per_page=${AUTHS_MAX_PER_PAGE}`);
    expect(max.body.meta.per_page).toBe(AUTHS_MAX_PER_PAGE);
  });

  it.each<[string, string[]]>([
    [`?per_page=${AUTHS_MAX_PER_PAGE + 1}`, ['per_page']],
    ['?per_page=0', ['per_page']],
    ['?per_page=abc', ['per_page']],
    ['?page=0', ['page']],
    ['?page=-1&per_page=1000', ['page', 'per_page']],
    ['?page=1.5', ['page']],
    ['?page=1000001', ['page']],
    ['?company_id=999999', ['company_id']],
  ])('422 for %s', async (query, fields) => {
    expect(failingFields(await list(query)).sort()).toEqual(fields.sort());
  });

  it('422 for per_page above the maximum in a JSON body on GET', async () => {
    expect(failingFields(await list('', { json: { per_page: AUTHS_MAX_PER_PAGE + 1 } }))).toEqual(['per_page']);
  });

  it('leaves deleted auths out, including those deleted through v1', async () => {
    const other = await newCompany(gw);
    const a = await created(other, { provider: 'chat_b', token: 't' });
    const b = await created(other, { provider: 'chat_c', token: 't' });
    expect((await gw.request('DELETE', `/p1/companies/${other}/channels/${a.id}`)).status).toBe(200);
    const res = await gw.request('GET', authsPath(other));
    expect(res.body.auths.map((x: Auth) => x.id)).toEqual([b.id]);
    expect(res.body.meta.entries_count).toBe(1);
  });

  it('answers an empty list for a company without auths', async () => {
    const res = await gw.request('GET', authsPath(await newCompany(gw)));
    expect(res.body).toEqual({ auths: [], meta: { page: 1, entries_count: 0, per_page: 25 } });
  });
});

describe('GET /api/p2/auths', () => {
  it("lists the auths of every company of the account, never another account's", async () => {
    const token = await gw.createAccount('lister');
    const a = await newCompany(gw, {}, token);
    const b = await newCompany(gw, {}, token);
    const mine = [
      (await create(a, { provider: 'chat_b', token: 't' }, token)).body.auth.id,
      (await create(b, { provider: 'chat_b', token: 't' }, token)).body.auth.id,
      (await create(a, { provider: 'chat_d' }, token)).body.auth.id,
    ];
    // Another account's auth, created after.
    await created(await newCompany(gw), { provider: 'chat_b', token: 't' });

    const res = await gw.request('GET', '/api/p2/auths', { token });
    expect(res.status, res.text).toBe(200);
    expect(validateListResponse(res.body)).toBe(true);
    expect(res.body.auths.map((x: Auth) => x.id)).toEqual([...mine].sort((x, y) => x - y));
    expect(res.body.meta).toEqual({ page: 1, entries_count: 3, per_page: 25 });

    const page = await gw.request('GET', '/api/p2/auths?page=2&per_page=2', { token });
    expect(page.body.auths).toHaveLength(1);
    expect(page.body.meta).toEqual({ page: 2, entries_count: 3, per_page: 2 });
    expect(failingFields(await gw.request('GET', '/api/p2/auths?per_page=101', { token }))).toEqual(['per_page']);

    const fresh = await gw.createAccount('empty');
    expect((await gw.request('GET', '/api/p2/auths', { token: fresh })).body).toEqual({
      auths: [],
      meta: { page: 1, entries_count: 0, per_page: 25 },
    });
  });
});

describe('GET /api/p2/companies/:companyId/auths/:id', () => {
  it('answers {auth}', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_a' });
    expect(expectAuthAnswer(await gw.request('GET', authPath(company, auth.id)))).toEqual(auth);
  });

  it('404 for a missing, malformed, deleted or other company’s auth', async () => {
    const company = await newCompany(gw);
    const other = await newCompany(gw);
    const auth = await created(other, { provider: 'chat_a' });
    for (const id of ['999999', 'abc', '0', '1.5'])
      expectErrorShape(await gw.request('GET', authPath(company, id)), 404, 'not_found');
    expectErrorShape(await gw.request('GET', authPath(company, auth.id)), 404, 'not_found');
    await gw.request('DELETE', authPath(other, auth.id));
    expectErrorShape(await gw.request('GET', authPath(other, auth.id)), 404, 'not_found');
  });
});
