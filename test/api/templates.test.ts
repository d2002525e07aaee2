import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateObject } from '../../schemas/objects/template.js';
import { failingFields, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { compileSchema } from '../helpers/schemas.js';

let gw: TestGateway;
let first: number;
let second: number;
let foreign: number;
const isTemplate = compileSchema(templateObject);

const T0 = Date.parse('2026-10-01T00:00:00.000Z');

beforeAll(async () => {
  gw = await startTestGateway();
  const create = async (token: string, name: string) =>
    (await gw.request('POST', '/p1/companies', { token, json: { name } })).body.data.external_id as number;
  first = await create(gw.token, 'First');
  second = await create(gw.token, 'Second');
  const other = await gw.createAccount();
  foreign = await create(other, 'Foreign');
  // 30 templates in `first` (positions descending as they get newer), 2 in `second`, 1 foreign.
  const seed = (company: number, i: number, position: number) =>
    gw.gateway.store.templates.insert({
      company_id: company,
      channel_id: null,
      name: `t${company}-${i}`,
      body: 'Hi {{1}}',
      biz_template_id: `biz-${company}-${i}`,
      language: 'en',
      substitutions_count: 1,
      header_content_type: i === 0 ? 'text' : null,
      header: i === 0 ? 'Header' : null,
      namespace: null,
      position,
      created_at: T0 + i * 1000 + company,
    });
  for (let i = 0; i < 30; i++) seed(first, i, 30 - i);
  for (let i = 0; i < 2; i++) seed(second, i, 100 + i);
  seed(foreign, 0, 0);
});
afterAll(() => gw.close());

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
    expect(byPosition.body.biz_templates.map((t: { position: number }) => t.position)).toEqual([1, 2, 3]);
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
