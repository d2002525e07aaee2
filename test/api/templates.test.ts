import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateObject } from '../../schemas/objects/template.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { failingFields, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { compileSchema } from '../helpers/schemas.js';
import { eventually } from '../helpers/wait.js';

let gw: TestGateway;
let fake: FakeProvider;
let first: number;
let second: number;
let foreign: number;
const isTemplate = compileSchema(templateObject);

/** Template `i` of a company as the provider lists it; the first has a text header. */
const providerTemplate = (company: number, i: number) => ({
  id: `biz-${company}-${i}`,
  name: `t${company}-${i}`,
  language: 'en',
  status: 'APPROVED',
  components: [
    ...(i === 0 ? [{ type: 'HEADER', format: 'TEXT', text: 'Header' }] : []),
    { type: 'BODY', text: 'Hi {{1}}' },
  ],
});

/**
 * Gives `company` `count` templates through HTTP alone, as a client's gateway gets them: a
 * chat_a_business auth syncs the first from the provider when created, then the provider lists one
 * more before each sync (the admin API's), so each is newer than the one before and its position
 * is its place in the provider's list.
 */
async function syncTemplates(company: number, count: number, token = gw.token): Promise<void> {
  const listed = () => gw.request('GET', `/api/p2/biz_templates?company_ids[]=${company}&per_page=100`, { token });
  fake.templates = [providerTemplate(company, 0)];
  const auth = await gw.request('POST', `/api/p2/companies/${company}/auths`, {
    token,
    json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 'EAAT', vendor_client_id: `WABA${company}` },
  });
  expect(auth.status, auth.text).toBe(201);
  await eventually('the first template synced', async () => (await listed()).body.meta.entries_count === 1);
  for (let i = 1; i < count; i++) {
    fake.templates = [...fake.templates, providerTemplate(company, i)];
    const sync = await gw.admin('POST', `/admin/channels/${auth.body.auth.id as number}/templates/sync`);
    expect(sync.status, JSON.stringify(sync.body)).toBe(200);
  }
  expect((await listed()).body.meta.entries_count).toBe(count);
}

beforeAll(async () => {
  fake = await new FakeProvider().start();
  gw = await startTestGateway({ ...TO_RECEIVERS, ...fake.env() });
  const create = async (token: string, name: string) =>
    (await gw.request('POST', '/p1/companies', { token, json: { name } })).body.data.external_id as number;
  first = await create(gw.token, 'First');
  second = await create(gw.token, 'Second');
  const other = await gw.createAccount();
  foreign = await create(other, 'Foreign');
  // 30 templates in `first`, 2 in `second`, 1 foreign.
  await syncTemplates(first, 30);
  await syncTemplates(second, 2);
  await syncTemplates(foreign, 1, other);
}, 120_000);
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

const names = (res: { body: { biz_templates: { name: string }[] } }) => res.body.biz_templates.map((t) => t.name);

describe('GET /api/p2/biz_templates', () => {
  it("lists the account's templates, newest first, 25 a page by default", async () => {
    const res = await gw.request('GET', '/api/p2/biz_templates');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ page: 1, entries_count: 32, per_page: 25 });
    expect(res.body.biz_templates).toHaveLength(25);
    for (const template of res.body.biz_templates)
      expect(isTemplate(template), JSON.stringify(isTemplate.errors)).toBe(true);
    const created = res.body.biz_templates.map((t: { created_at: string }) => t.created_at);
    expect(created).toEqual([...created].sort().reverse());
    expect(names(res)).not.toContain(`t${foreign}-0`);
  });

  it('narrows to company_ids, silently dropping ids of other accounts', async () => {
    const res = await gw.request('GET', `/api/p2/biz_templates?company_ids[]=${second}&company_ids[]=${foreign}`);
    expect(names(res)).toEqual([`t${second}-1`, `t${second}-0`]);
    expect(res.body.meta.entries_count).toBe(2);
    const json = await gw.request('GET', '/api/p2/biz_templates', { json: { company_ids: [foreign] } });
    expect(json.body).toEqual({ biz_templates: [], meta: { page: 1, entries_count: 0, per_page: 25 } });
  });

  it('sorts by position or created_at in either direction', async () => {
    const byPosition = await gw.request(
      'GET',
      `/api/p2/biz_templates?company_ids[]=${first}&sort[position]=asc&per_page=3`,
    );
    expect(byPosition.body.biz_templates.map((t: { position: number }) => t.position)).toEqual([0, 1, 2]);
    const oldest = await gw.request('GET', '/api/p2/biz_templates', {
      json: { company_ids: [first], sort: { created_at: 'asc' }, per_page: 2 },
    });
    expect(names(oldest)).toEqual([`t${first}-0`, `t${first}-1`]);
  });

  it('pages', async () => {
    const res = await gw.request('GET', `/api/p2/biz_templates?company_ids[]=${first}&page=2&per_page=25`);
    expect(res.body.meta).toEqual({ page: 2, entries_count: 30, per_page: 25 });
    expect(res.body.biz_templates).toHaveLength(5);
  });

  it.each([
    ['sort[name]=asc', ['sort']],
    ['sort[created_at]=up', ['sort/created_at']],
    ['per_page=101', ['per_page']],
    ['page=0', ['page']],
    ['company_ids[]=abc', ['company_ids/0']],
  ])('answers 422 for %s', async (query, fields) => {
    expect(failingFields(await gw.request('GET', `/api/p2/biz_templates?${query}`))).toEqual(fields);
  });

  it('answers 422 for two sort keys at once', async () => {
    const res = await gw.request('GET', '/api/p2/biz_templates', {
      json: { sort: { created_at: 'asc', position: 'desc' } },
    });
    expect(failingFields(res)).toEqual(['sort']);
  });
});
