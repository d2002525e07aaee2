import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectErrorShape,
  failingFields,
  startTestGateway,
  type TestGateway,
  type TestResponse,
} from '../helpers/gateway.js';

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});

afterAll(async () => {
  await t?.close();
});

interface Company {
  external_id: number;
  name: string;
  phone: string | null;
  description: string | null;
  webhook_url: string | null;
  hidden: boolean;
}

async function create(body: Record<string, unknown>, token?: string): Promise<number> {
  const res = await t.request('POST', '/p1/companies', { json: body, token });
  expect(res.status, res.text).toBe(201);
  return res.body.data.external_id as number;
}

async function list(query = '', token?: string): Promise<TestResponse> {
  return t.request('GET', `/p1/companies${query}`, { token });
}

/** Every company of the token's account, read through the API. */
async function allCompanies(token?: string): Promise<Company[]> {
  const companies: Company[] = [];
  let from = '';
  for (let i = 0; i < 1000; i++) {
    const res = await list(`?per=100&from=${encodeURIComponent(from)}`, token);
    expect(res.status, res.text).toBe(200);
    companies.push(...res.body.data.companies);
    from = res.body.data.next_page;
    if (from === '') return companies;
  }
  throw new Error('list never ended');
}

async function getCompany(id: number, token?: string): Promise<Company | undefined> {
  return (await allCompanies(token)).find((c) => c.external_id === id);
}

/**
 * Runs a request that must be rejected and checks that nothing was stored: every company of the
 * bootstrap account, the only account this file has, is as it was.
 */
async function rejected(send: () => Promise<TestResponse>): Promise<TestResponse> {
  const before = await allCompanies();
  const res = await send();
  expect(await allCompanies()).toEqual(before);
  return res;
}

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
