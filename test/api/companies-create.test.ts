// Black-box HTTP tests of creating a v1 company (contract section 2 "Company (v1)", section 4 "v1
// Companies"; section 8 the 255-character name): JSON and form bodies, what an unset field answers, and
// every refusal, each proved to store nothing. It runs against one daemon and, merged by the front,
// against a 3-shard cluster (vitest.cluster.config.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, failingFields, type TestGateway } from '../helpers/gateway.js';
import { companyHelpers, startCompaniesGateway } from './company-fixtures.js';

let t: TestGateway;
let close: () => Promise<void>;
const { create, getCompany, rejected } = companyHelpers(() => t);

beforeAll(async () => {
  ({ gw: t, close } = await startCompaniesGateway());
});
afterAll(() => close?.());

describe('POST /p1/companies', () => {
  it('creates a company from JSON and answers 201 created with its id', async () => {
    const res = await t.request('POST', '/p1/companies', {
      json: {
        name: 'Acme',
        phone: '79001234567',
        description: 'Our shop',
        webhook_url: 'https://hooks.example.com/acme',
      },
    });
    expect(res.status).toBe(201);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    expect(res.body).toEqual({ status: 'created', data: { external_id: expect.any(Number) } });
    expect(Number.isInteger(res.body.data.external_id)).toBe(true);
    expect(await getCompany(res.body.data.external_id)).toEqual({
      external_id: res.body.data.external_id,
      name: 'Acme',
      phone: '79001234567',
      description: 'Our shop',
      webhook_url: 'https://hooks.example.com/acme',
      hidden: false,
    });
  });

  it('creates a company from a form body', async () => {
    const res = await t.request('POST', '/p1/companies', {
      form: new URLSearchParams({
        name: 'Form Co',
        phone: '123',
        description: 'via form',
        webhook_url: 'http://example.com/x',
      }),
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ status: 'created', data: { external_id: expect.any(Number) } });
    expect(await getCompany(res.body.data.external_id)).toEqual({
      external_id: res.body.data.external_id,
      name: 'Form Co',
      phone: '123',
      description: 'via form',
      webhook_url: 'http://example.com/x',
      hidden: false,
    });
  });

  it('answers null for unset optional fields and hidden false', async () => {
    const id = await create({ name: 'Bare' });
    expect(await getCompany(id)).toEqual({
      external_id: id,
      name: 'Bare',
      phone: null,
      description: null,
      webhook_url: null,
      hidden: false,
    });
  });

  it('stores empty optional strings and explicit nulls as null', async () => {
    const fromJson = await create({ name: 'Empty', phone: '', description: '', webhook_url: '' });
    expect(await getCompany(fromJson)).toMatchObject({ phone: null, description: null, webhook_url: null });
    const fromNull = await create({ name: 'Null', phone: null, description: null, webhook_url: null });
    expect(await getCompany(fromNull)).toMatchObject({ phone: null, description: null, webhook_url: null });
    const res = await t.request('POST', '/p1/companies', { form: 'name=EmptyForm&phone=&description=&webhook_url=' });
    expect(res.status, res.text).toBe(201);
    expect(await getCompany(res.body.data.external_id)).toMatchObject({
      name: 'EmptyForm',
      phone: null,
      description: null,
      webhook_url: null,
    });
  });

  it('gives every company its own id', async () => {
    const a = await create({ name: 'Twin' });
    const b = await create({ name: 'Twin' });
    expect(a).not.toBe(b);
  });

  it('accepts a name of exactly 255 characters', async () => {
    const name = 'n'.repeat(255);
    const id = await create({ name });
    expect((await getCompany(id))?.name).toBe(name);
  });

  it('accepts a phone of 64, a description of 10,000 and a webhook_url of 2,048 characters', async () => {
    const webhook_url = `https://hooks.example.com/${'w'.repeat(2048 - 26)}`;
    const fields = { phone: '7'.repeat(64), description: 'd'.repeat(10_000), webhook_url };
    const id = await create({ name: 'At the limits', ...fields });
    expect(await getCompany(id)).toMatchObject(fields);
  });

  it('keeps a unicode name as sent', async () => {
    const name = 'Компания «Ромашка» 🌼';
    const id = await create({ name });
    expect((await getCompany(id))?.name).toBe(name);
  });

  it('ignores hidden on create (the contract accepts it on update only)', async () => {
    const res = await t.request('POST', '/p1/companies', { json: { name: 'Not hidden', hidden: true } });
    expect(res.status).toBe(201);
    expect((await getCompany(res.body.data.external_id))?.hidden).toBe(false);
  });

  describe('rejects and stores nothing', () => {
    it('a missing name', async () => {
      expect(failingFields(await rejected(() => t.request('POST', '/p1/companies', { json: { phone: '1' } })))).toEqual(
        ['name'],
      );
      expect(failingFields(await rejected(() => t.request('POST', '/p1/companies', { json: {} })))).toEqual(['name']);
      expect(failingFields(await rejected(() => t.request('POST', '/p1/companies', { form: 'phone=1' })))).toEqual([
        'name',
      ]);
    });

    it.each([
      ['empty', ''],
      ['blank', '   '],
      ['blank with tabs and newlines', '\t\n '],
      ['256 characters', 'n'.repeat(256)],
    ])('a %s name', async (_what, name) => {
      const fromJson = await rejected(() => t.request('POST', '/p1/companies', { json: { name } }));
      expect(failingFields(fromJson)).toEqual(['name']);
      const fromForm = await rejected(() =>
        t.request('POST', '/p1/companies', { form: new URLSearchParams({ name }) }),
      );
      expect(failingFields(fromForm)).toEqual(['name']);
    });

    it.each([5, true, null, ['Acme'], { first: 'Acme' }])('a JSON name of the wrong type: %j', async (name) => {
      const res = await rejected(() => t.request('POST', '/p1/companies', { json: { name } }));
      expect(failingFields(res)).toEqual(['name']);
      expect(expectErrorShape(res, 422, 'validation_failed')[0]!.detail).toContain('name');
    });

    it.each(['phone', 'description', 'webhook_url'])('a JSON %s of the wrong type', async (field) => {
      for (const value of [5, true, ['x'], { a: 1 }]) {
        const res = await rejected(() =>
          t.request('POST', '/p1/companies', { json: { name: 'Typed', [field]: value } }),
        );
        expect(failingFields(res)).toEqual([field]);
      }
    });

    it.each([
      ['phone', '7'.repeat(65)],
      ['description', 'd'.repeat(10_001)],
      ['webhook_url', `https://hooks.example.com/${'w'.repeat(2049 - 26)}`],
    ])('a %s one character over its limit', async (field, value) => {
      const res = await rejected(() => t.request('POST', '/p1/companies', { json: { name: 'Long', [field]: value } }));
      expect(failingFields(res)).toEqual([field]);
    });

    it('a nested form field where text is expected', async () => {
      const res = await rejected(() => t.request('POST', '/p1/companies', { form: 'name[first]=Acme' }));
      expect(failingFields(res)).toEqual(['name']);
    });

    it.each([
      'ftp://example.com/hook',
      '/relative/hook',
      'hooks.example.com/x',
      'not a url',
      'javascript:alert(1)',
      'mailto:a@example.com',
    ])('the webhook_url %j', async (webhook_url) => {
      const fromJson = await rejected(() =>
        t.request('POST', '/p1/companies', { json: { name: 'Hooked', webhook_url } }),
      );
      expect(failingFields(fromJson)).toEqual(['webhook_url']);
      const fromForm = await rejected(() =>
        t.request('POST', '/p1/companies', { form: new URLSearchParams({ name: 'Hooked', webhook_url }) }),
      );
      expect(failingFields(fromForm)).toEqual(['webhook_url']);
    });

    it('with one entry per failing field', async () => {
      const res = await rejected(() =>
        t.request('POST', '/p1/companies', {
          json: { name: 'x'.repeat(256), phone: 7, webhook_url: 'ftp://x.example.com' },
        }),
      );
      const errors = expectErrorShape(res, 422, 'validation_failed');
      expect(errors.map((e) => e.source?.pointer).sort()).toEqual(['/name', '/phone', '/webhook_url']);
      for (const error of errors) {
        expect(error.detail).toContain(error.source!.pointer.slice(1));
      }
    });

    it('malformed JSON as 400 bad_request', async () => {
      for (const body of ['{"name": "Acme"', '{name: Acme}', 'not json at all', '{"name": "a",}']) {
        const res = await rejected(() =>
          t.request('POST', '/p1/companies', { body, headers: { 'content-type': 'application/json' } }),
        );
        expectErrorShape(res, 400, 'bad_request');
      }
    });

    it('a JSON body that is not an object as 400 bad_request', async () => {
      for (const json of ['[{"name": "Acme"}]', '"Acme"', '42']) {
        const res = await rejected(() => t.request('POST', '/p1/companies', { json }));
        expectErrorShape(res, 400, 'bad_request');
      }
    });

    it('a body over 1 MiB as 413 payload_too_large', async () => {
      const json = JSON.stringify({ name: 'Big', description: 'd'.repeat(1024 * 1024 + 10) });
      const res = await rejected(() => t.request('POST', '/p1/companies', { json }));
      expectErrorShape(res, 413, 'payload_too_large');
      const form = `name=Big&description=${'d'.repeat(1024 * 1024 + 10)}`;
      expectErrorShape(await rejected(() => t.request('POST', '/p1/companies', { form })), 413, 'payload_too_large');
    });

    it('a text/plain body as 415', async () => {
      const res = await rejected(() =>
        t.request('POST', '/p1/companies', { body: 'name=Acme', headers: { 'content-type': 'text/plain' } }),
      );
      expectErrorShape(res, 415, 'unsupported_media_type');
      const xml = await rejected(() =>
        t.request('POST', '/p1/companies', {
          body: '<name>Acme</name>',
          headers: { 'content-type': 'application/xml' },
        }),
      );
      expectErrorShape(xml, 415, 'unsupported_media_type');
    });

    it('a request without a valid token as 401', async () => {
      expectErrorShape(
        await rejected(() => t.request('POST', '/p1/companies', { json: { name: 'Anon' }, token: null })),
        401,
        'unauthorized',
      );
      expectErrorShape(
        await rejected(() => t.request('POST', '/p1/companies', { json: { name: 'Anon' }, token: 'wrong-token' })),
        401,
        'unauthorized',
      );
      expectErrorShape(
        await rejected(() => t.request('POST', '/p1/companies', { json: { name: 'Anon' }, token: '' })),
        401,
        'unauthorized',
      );
    });
  });
});
