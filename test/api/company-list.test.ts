// GET /p1/companies: the list envelope, its paging over ids in both directions, and accounts kept
// apart. Black-box: it runs against one daemon and, merged by the front, against a 3-shard cluster
// (vitest.cluster.config.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, failingFields, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { companyHelpers, type Company } from './company-fixtures.js';

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});

afterAll(async () => {
  await t?.close();
});

const { create, list, allCompanies } = companyHelpers(() => t);

describe('GET /p1/companies', () => {
  it('answers the list envelope with exactly the contract fields', async () => {
    await create({ name: 'Listed' });
    const res = await list();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'status']);
    expect(res.body.status).toBe('ok');
    expect(Object.keys(res.body.data).sort()).toEqual(['companies', 'next_page']);
    expect(typeof res.body.data.next_page).toBe('string');
    expect(res.body.data.companies.length).toBeGreaterThan(0);
    for (const company of res.body.data.companies as Record<string, unknown>[]) {
      expect(Object.keys(company).sort()).toEqual([
        'description',
        'external_id',
        'hidden',
        'name',
        'phone',
        'webhook_url',
      ]);
      expect(typeof company.external_id).toBe('number');
      expect(typeof company.name).toBe('string');
      expect(typeof company.hidden).toBe('boolean');
      for (const key of ['phone', 'description', 'webhook_url']) {
        expect(company[key] === null || typeof company[key] === 'string').toBe(true);
      }
    }
  });

  it('answers an empty list with an empty next_page for an account without companies', async () => {
    const token = await t.createAccount('empty');
    const res = await list('', token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', data: { companies: [], next_page: '' } });
  });

  describe('pagination', () => {
    let token: string;
    let ids: number[];

    beforeAll(async () => {
      token = await t.createAccount('pager');
      ids = [];
      for (let i = 1; i <= 7; i++) ids.push(await create({ name: `Page ${i}` }, token));
    });

    async function walk(direction: string, per: number): Promise<{ pages: number[][]; tokens: string[] }> {
      const pages: number[][] = [];
      const tokens: string[] = [];
      let from: string | undefined;
      for (let i = 0; i < 100; i++) {
        const query = new URLSearchParams({
          per: String(per),
          ...(direction === '' ? {} : { sort_direction: direction }),
        });
        if (from !== undefined) query.set('from', from);
        const res = await list(`?${query.toString()}`, token);
        expect(res.status, res.text).toBe(200);
        expect(res.body.status).toBe('ok');
        pages.push((res.body.data.companies as Company[]).map((c) => c.external_id));
        const next = res.body.data.next_page as string;
        expect(typeof next).toBe('string');
        tokens.push(next);
        if (next === '') return { pages, tokens };
        expect(next.length).toBeLessThanOrEqual(255);
        from = next;
      }
      throw new Error('pagination never ended');
    }

    it('walks every company exactly once, ascending by id', async () => {
      const { pages, tokens } = await walk('asc', 2);
      expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1]);
      expect(pages.flat()).toEqual([...ids].sort((a, b) => a - b));
      expect(tokens.at(-1)).toBe('');
      expect(new Set(tokens).size).toBe(tokens.length);
    });

    it('walks every company exactly once, descending by id', async () => {
      const { pages } = await walk('desc', 2);
      expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1]);
      expect(pages.flat()).toEqual([...ids].sort((a, b) => b - a));
    });

    it('sorts ascending by default', async () => {
      const { pages } = await walk('', 2);
      expect(pages.flat()).toEqual([...ids].sort((a, b) => a - b));
    });

    it('ends with an empty next_page and no empty trailing page when the count divides evenly', async () => {
      const token2 = await t.createAccount('even');
      const even = [
        await create({ name: 'E1' }, token2),
        await create({ name: 'E2' }, token2),
        await create({ name: 'E3' }, token2),
        await create({ name: 'E4' }, token2),
      ];
      const first = await list('?per=2', token2);
      expect(first.body.data.companies.map((c: Company) => c.external_id)).toEqual(even.slice(0, 2));
      expect(first.body.data.next_page).not.toBe('');
      const second = await list(`?per=2&from=${encodeURIComponent(first.body.data.next_page)}`, token2);
      expect(second.body.data.companies.map((c: Company) => c.external_id)).toEqual(even.slice(2));
      expect(second.body.data.next_page).toBe('');
      const all = await list('?per=4', token2);
      expect(all.body.data.companies).toHaveLength(4);
      expect(all.body.data.next_page).toBe('');
    });

    it('answers everything in one page with per=100 and with the default per', async () => {
      for (const query of ['?per=100', '']) {
        const res = await list(query, token);
        expect(res.body.data.companies.map((c: Company) => c.external_id)).toEqual(ids);
        expect(res.body.data.next_page).toBe('');
      }
    });

    it('accepts per=1', async () => {
      const res = await list('?per=1', token);
      expect(res.status).toBe(200);
      expect(res.body.data.companies.map((c: Company) => c.external_id)).toEqual([ids[0]]);
      expect(res.body.data.next_page).not.toBe('');
    });

    it('answers the first page for an empty, invalid or 255-character from', async () => {
      for (const from of ['', 'garbage', '!!!', 'MTIz', 'x'.repeat(255)]) {
        const res = await list(`?per=2&from=${encodeURIComponent(from)}`, token);
        expect(res.status, `${from}: ${res.text}`).toBe(200);
        expect(res.body.data.companies.map((c: Company) => c.external_id)).toEqual(ids.slice(0, 2));
      }
    });

    it.each([
      ['per=0', 'per'],
      ['per=101', 'per'],
      ['per=abc', 'per'],
      ['per=-1', 'per'],
      ['per=1.5', 'per'],
      ['per=', 'per'],
      ['sort_direction=up', 'sort_direction'],
      ['sort_direction=ASC', 'sort_direction'],
      ['sort_direction=', 'sort_direction'],
      [`from=${'x'.repeat(256)}`, 'from'],
    ])('rejects %s with 422 on the field', async (query, field) => {
      const res = await list(`?${query}`, token);
      expect(failingFields(res)).toEqual([field]);
    });

    it('reports every bad parameter at once', async () => {
      const res = await list(`?per=0&sort_direction=sideways&from=${'x'.repeat(256)}`, token);
      expect(failingFields(res).sort()).toEqual(['from', 'per', 'sort_direction']);
    });
  });

  it('default per is 50', async () => {
    const token = await t.createAccount('many');
    const ids: number[] = [];
    for (let i = 0; i < 51; i++) ids.push(await create({ name: `Many ${i}` }, token));
    const first = await list('', token);
    expect(first.body.data.companies).toHaveLength(50);
    expect(first.body.data.next_page).not.toBe('');
    const second = await list(`?from=${encodeURIComponent(first.body.data.next_page)}`, token);
    expect(second.body.data.companies.map((c: Company) => c.external_id)).toEqual([ids[50]]);
    expect(second.body.data.next_page).toBe('');
  });

  it('keeps accounts apart', async () => {
    const alice = await t.createAccount('alice');
    const bob = await t.createAccount('bob');
    const aliceIds = [await create({ name: 'A1' }, alice), await create({ name: 'A2' }, alice)];
    const bobIds = [
      await create({ name: 'B1' }, bob),
      await create({ name: 'B2' }, bob),
      await create({ name: 'B3' }, bob),
    ];

    expect((await allCompanies(alice)).map((c) => c.external_id)).toEqual(aliceIds);
    expect((await allCompanies(bob)).map((c) => c.external_id)).toEqual(bobIds);
    const mine = (await allCompanies()).map((c) => c.external_id);
    for (const id of [...aliceIds, ...bobIds]) expect(mine).not.toContain(id);

    // A cursor made from another account's id does not reveal anything either.
    const page = await list('?per=1', bob);
    const res = await list(`?per=100&from=${encodeURIComponent(page.body.data.next_page)}`, alice);
    expect(res.status, res.text).toBe(200);
    for (const c of res.body.data.companies as Company[]) expect(bobIds).not.toContain(c.external_id);
  });

  it('refuses a request without a valid token', async () => {
    expectErrorShape(await list('', null as unknown as string), 401, 'unauthorized');
    expectErrorShape(await list('', 'invalid-token-value'), 401, 'unauthorized');
  });
});
