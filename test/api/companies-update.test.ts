// Black-box HTTP tests of updating a v1 company (contract section 2 "Company (v1)", section 4 "v1
// Companies"; section 8 the 255-character name): every field or only the ones sent, clearing, hiding and
// showing, and every refusal, each proved to change nothing. It runs against one daemon and, merged by
// the front, against a 3-shard cluster (vitest.cluster.config.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, failingFields, type TestGateway } from '../helpers/gateway.js';
import { companyHelpers, startCompaniesGateway, type Company } from './company-fixtures.js';

let t: TestGateway;
let close: () => Promise<void>;
const { create, getCompany } = companyHelpers(() => t);

beforeAll(async () => {
  ({ gw: t, close } = await startCompaniesGateway());
});
afterAll(() => close?.());

describe('PUT /p1/companies/<ID>', () => {
  it('updates every field and answers 200 updated with the id', async () => {
    const id = await create({ name: 'Before' });
    const res = await t.request('PUT', `/p1/companies/${id}`, {
      json: {
        name: 'After',
        phone: '555',
        description: 'desc',
        webhook_url: 'https://example.com/after',
        hidden: true,
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: 'updated', data: { external_id: id } });
    expect(await getCompany(id)).toEqual({
      external_id: id,
      name: 'After',
      phone: '555',
      description: 'desc',
      webhook_url: 'https://example.com/after',
      hidden: true,
    });
  });

  it('changes only the fields sent', async () => {
    const id = await create({
      name: 'Keep',
      phone: '1',
      description: 'keep me',
      webhook_url: 'https://example.com/keep',
    });
    const res = await t.request('PUT', `/p1/companies/${id}`, { json: { phone: '2' } });
    expect(res.status, res.text).toBe(200);
    expect(await getCompany(id)).toEqual({
      external_id: id,
      name: 'Keep',
      phone: '2',
      description: 'keep me',
      webhook_url: 'https://example.com/keep',
      hidden: false,
    });
    const empty = await t.request('PUT', `/p1/companies/${id}`, { json: {} });
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual({ status: 'updated', data: { external_id: id } });
    expect((await getCompany(id))?.name).toBe('Keep');
  });

  it('clears optional fields with an empty string or null', async () => {
    const id = await create({ name: 'Clear', phone: '1', description: 'd', webhook_url: 'https://example.com/c' });
    expect(
      (await t.request('PUT', `/p1/companies/${id}`, { json: { phone: '', description: null, webhook_url: '' } }))
        .status,
    ).toBe(200);
    expect(await getCompany(id)).toMatchObject({ phone: null, description: null, webhook_url: null });

    const other = await create({
      name: 'Clear form',
      phone: '1',
      description: 'd',
      webhook_url: 'https://example.com/c',
    });
    const res = await t.request('PUT', `/p1/companies/${other}`, { form: 'phone=&description=&webhook_url=' });
    expect(res.status, res.text).toBe(200);
    expect(await getCompany(other)).toMatchObject({
      name: 'Clear form',
      phone: null,
      description: null,
      webhook_url: null,
    });
  });

  it('hides and shows a company (JSON booleans)', async () => {
    const id = await create({ name: 'Peekaboo' });
    expect((await t.request('PUT', `/p1/companies/${id}`, { json: { hidden: true } })).status).toBe(200);
    expect((await getCompany(id))?.hidden).toBe(true);
    expect((await t.request('PUT', `/p1/companies/${id}`, { json: { hidden: false } })).status).toBe(200);
    expect((await getCompany(id))?.hidden).toBe(false);
  });

  it('hides and shows a company (form text coerced)', async () => {
    const id = await create({ name: 'Form peekaboo' });
    const hide = await t.request('PUT', `/p1/companies/${id}`, { form: 'hidden=true' });
    expect(hide.status, hide.text).toBe(200);
    expect((await getCompany(id))?.hidden).toBe(true);
    const show = await t.request('PUT', `/p1/companies/${id}`, { form: 'hidden=false' });
    expect(show.status, show.text).toBe(200);
    expect((await getCompany(id))?.hidden).toBe(false);
  });

  it('keeps a hidden company in the API list', async () => {
    const id = await create({ name: 'Hidden but listed' });
    await t.request('PUT', `/p1/companies/${id}`, { json: { hidden: true } });
    expect(await getCompany(id)).toMatchObject({ external_id: id, hidden: true });
  });

  it('accepts a name of exactly 255 characters', async () => {
    const id = await create({ name: 'Short' });
    const name = 'u'.repeat(255);
    expect((await t.request('PUT', `/p1/companies/${id}`, { json: { name } })).status).toBe(200);
    expect((await getCompany(id))?.name).toBe(name);
  });

  describe('rejects and changes nothing', () => {
    let id: number;
    let original: Company;

    beforeAll(async () => {
      id = await create({
        name: 'Unchanged',
        phone: '1',
        description: 'same',
        webhook_url: 'https://example.com/same',
      });
      original = (await getCompany(id))!;
    });

    async function expectUnchanged(): Promise<void> {
      expect(await getCompany(id)).toEqual(original);
    }

    it.each([
      [{ name: 'x'.repeat(256) }, ['name']],
      [{ name: '' }, ['name']],
      [{ name: '  ' }, ['name']],
      [{ name: null }, ['name']],
      [{ name: 5 }, ['name']],
      [{ phone: 5 }, ['phone']],
      [{ description: false }, ['description']],
      [{ webhook_url: 'ftp://example.com' }, ['webhook_url']],
      [{ webhook_url: '/relative' }, ['webhook_url']],
      [{ webhook_url: 'not a url' }, ['webhook_url']],
      [{ hidden: 'yes' }, ['hidden']],
      [{ hidden: 'true' }, ['hidden']],
      [{ hidden: 1 }, ['hidden']],
      [{ hidden: null }, ['hidden']],
      [{ name: 'Changed', hidden: 'yes' }, ['hidden']],
      [{ name: 'x'.repeat(256), webhook_url: 'ftp://x', hidden: 'no' }, ['hidden', 'name', 'webhook_url']],
    ])('JSON %j', async (json, fields) => {
      const res = await t.request('PUT', `/p1/companies/${id}`, { json });
      expect(failingFields(res).sort()).toEqual(fields);
      await expectUnchanged();
    });

    it.each([
      ['hidden=yes', ['hidden']],
      ['hidden=', ['hidden']],
      [`name=${'x'.repeat(256)}`, ['name']],
      ['name=', ['name']],
      ['webhook_url=ftp%3A%2F%2Fexample.com', ['webhook_url']],
    ])('form %s', async (form, fields) => {
      const res = await t.request('PUT', `/p1/companies/${id}`, { form });
      expect(failingFields(res).sort()).toEqual(fields);
      await expectUnchanged();
    });

    it('malformed JSON as 400', async () => {
      const res = await t.request('PUT', `/p1/companies/${id}`, {
        body: '{"name": ',
        headers: { 'content-type': 'application/json' },
      });
      expectErrorShape(res, 400, 'bad_request');
      await expectUnchanged();
    });

    it('a body over 1 MiB as 413', async () => {
      const res = await t.request('PUT', `/p1/companies/${id}`, {
        json: JSON.stringify({ description: 'd'.repeat(1024 * 1024 + 10) }),
      });
      expectErrorShape(res, 413, 'payload_too_large');
      await expectUnchanged();
    });

    it('a text/plain body as 415', async () => {
      const res = await t.request('PUT', `/p1/companies/${id}`, {
        body: 'name=Changed',
        headers: { 'content-type': 'text/plain' },
      });
      expectErrorShape(res, 415, 'unsupported_media_type');
      await expectUnchanged();
    });

    it('no token as 401', async () => {
      expectErrorShape(
        await t.request('PUT', `/p1/companies/${id}`, { json: { name: 'Changed' }, token: null }),
        401,
        'unauthorized',
      );
      expectErrorShape(
        await t.request('PUT', `/p1/companies/${id}`, { json: { name: 'Changed' }, token: 'nope' }),
        401,
        'unauthorized',
      );
      await expectUnchanged();
    });
  });
});
