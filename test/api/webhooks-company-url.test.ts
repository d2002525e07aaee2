// Black-box HTTP tests of the mirror of the v1 webhook_url as the company endpoint and of the limit of
// five endpoints per company it counts towards (docs/design.md section 9) against a real gateway on a
// temp SQLite file: what PUT /p1/companies does to the mirror, what v2 may change of it, and the 422s
// that change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failingFields, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import {
  expectHook,
  expectUsableSecret,
  hookPath,
  hooksPath,
  startWebhooksGateway,
  webhookHelpers,
  type Body,
} from './webhook-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { createHook, list, rows, refused } = webhookHelpers(() => gw);

// No secret shown or stored here, the mirrors' included, reaches a list, a show or the log
// (webhooks-update-delete-rotate.test.ts proves it of its own in a test).
beforeAll(async () => {
  ({ gw, close } = await startWebhooksGateway({ checkSecretsOnClose: true }));
});
afterAll(() => close?.());

// ---------------------------------------------------------------------------------------------
// The limit and the v1 webhook_url

describe('at most five endpoints per company, the v1 webhook_url counting as one', () => {
  it('the sixth endpoint is a 422 and stores nothing', async () => {
    const company = await newCompany(gw);
    for (let i = 0; i < 5; i++) await createHook(company);
    const res = await refused(
      () => gw.request('POST', hooksPath(company), { json: { url: 'https://example.com/6' } }),
      422,
      'validation_failed',
    );
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].detail).toMatch(/at most 5/);
    expect(await list(company)).toHaveLength(5);
  });

  it('with a webhook_url, the fifth API endpoint is the last', async () => {
    const company = await newCompany(gw, { webhook_url: 'https://example.com/v1' });
    for (let i = 0; i < 4; i++) await createHook(company);
    await refused(
      () => gw.request('POST', hooksPath(company), { json: { url: 'https://example.com/6' } }),
      422,
      'validation_failed',
    );
    const shown = await list(company);
    expect(shown.map((h) => h.source)).toEqual(['company', 'api', 'api', 'api', 'api']);
  });

  it('setting a webhook_url on a company with five endpoints is a 422 on webhook_url and changes nothing', async () => {
    const company = await newCompany(gw);
    for (let i = 0; i < 5; i++) await createHook(company);
    const before = gw.gateway.store.db.prepare('SELECT * FROM companies WHERE id = ?').get(company);
    const res = await refused(
      () =>
        gw.request('PUT', `/p1/companies/${company}`, {
          json: { name: 'Renamed', webhook_url: 'https://example.com/v1' },
        }),
      422,
      'validation_failed',
    );
    expect(failingFields(res)).toEqual(['webhook_url']);
    expect(gw.gateway.store.db.prepare('SELECT * FROM companies WHERE id = ?').get(company)).toEqual(before);

    // Once one is deleted, it fits.
    await gw.request('DELETE', hookPath(company, rows(company)[0]!.id));
    const ok = await gw.request('PUT', `/p1/companies/${company}`, { json: { webhook_url: 'https://example.com/v1' } });
    expect(ok.body).toEqual({ status: 'updated', data: { external_id: company } });
    expect(rows(company).filter((r) => r.source === 'company')).toHaveLength(1);
  });

  it('changing the url of a company that already has its mirror is not a new endpoint', async () => {
    const company = await newCompany(gw, { webhook_url: 'https://example.com/a' });
    for (let i = 0; i < 4; i++) await createHook(company);
    const res = await gw.request('PUT', `/p1/companies/${company}`, { json: { webhook_url: 'https://example.com/b' } });
    expect(res.status, res.text).toBe(200);
    expect(rows(company).find((r) => r.source === 'company')!.url).toBe('https://example.com/b');
  });
});

describe('the v1 webhook_url is mirrored as the company endpoint', () => {
  it('created with the company, listed with source company, never showing its secret', async () => {
    const company = await newCompany(gw, { webhook_url: 'https://example.com/v1' });
    const shown = await list(company);
    expect(shown).toEqual([
      expect.objectContaining({
        company_id: company,
        source: 'company',
        url: 'https://example.com/v1',
        event_types: null,
        active: true,
      }),
    ]);
    const mirror = rows(company)[0]!;
    expectUsableSecret(mirror.secret);
    expect(JSON.stringify(shown)).not.toContain(mirror.secret);
  });

  it('no endpoint for a company without webhook_url, or with an empty or null one', async () => {
    expect(rows(await newCompany(gw))).toEqual([]);
    expect(rows(await newCompany(gw, { webhook_url: '' }))).toEqual([]);
    expect(rows(await newCompany(gw, { webhook_url: null }))).toEqual([]);
  });

  it('follows PUT /p1/companies: a new url moves it (same endpoint, same secret), a cleared one removes it', async () => {
    const company = await newCompany(gw);
    const put = (json: Body) => gw.request('PUT', `/p1/companies/${company}`, { json });

    expect((await put({ webhook_url: 'https://example.com/one' })).body).toEqual({
      status: 'updated',
      data: { external_id: company },
    });
    const first = rows(company)[0]!;
    expect(first).toMatchObject({ source: 'company', url: 'https://example.com/one' });

    await put({ name: 'Only the name' });
    expect(rows(company)).toEqual([first]);

    await put({ webhook_url: 'https://example.com/two' });
    const moved = rows(company)[0]!;
    expect(moved).toMatchObject({ id: first.id, secret: first.secret, url: 'https://example.com/two' });

    await put({ webhook_url: '' });
    expect(rows(company)).toEqual([]);
    await put({ webhook_url: 'https://example.com/three' });
    expect(rows(company)[0]!.secret).not.toBe(first.secret);
    await put({ webhook_url: null });
    expect(rows(company)).toEqual([]);
  });

  it('a form-encoded v1 update mirrors too', async () => {
    const company = await newCompany(gw);
    const res = await gw.request('PUT', `/p1/companies/${company}`, {
      form: 'webhook_url=https%3A%2F%2Fexample.com%2Fform',
    });
    expect(res.status).toBe(200);
    expect(rows(company)[0]).toMatchObject({ source: 'company', url: 'https://example.com/form' });
  });

  it('a rejected v1 update does not touch the mirror', async () => {
    const company = await newCompany(gw, { webhook_url: 'https://example.com/keep' });
    const res = await refused(
      () => gw.request('PUT', `/p1/companies/${company}`, { json: { webhook_url: 'ftp://x' } }),
      422,
      'validation_failed',
    );
    expect(failingFields(res)).toEqual(['webhook_url']);
  });

  it('can be filtered and paused, not moved nor deleted, through v2', async () => {
    const company = await newCompany(gw, { webhook_url: 'https://example.com/v1' });
    const mirror = rows(company)[0]!;
    const updated = expectHook(
      await gw.request('PATCH', hookPath(company, mirror.id), {
        json: { event_types: ['job.executed'], active: false },
      }),
    );
    expect(updated).toMatchObject({
      source: 'company',
      url: 'https://example.com/v1',
      event_types: ['job.executed'],
      active: false,
    });
    expectHook(await gw.request('PUT', hookPath(company, mirror.id), { json: { url: 'https://example.com/v1' } }));

    const move = await refused(
      () => gw.request('PUT', hookPath(company, mirror.id), { json: { url: 'https://example.com/elsewhere' } }),
      409,
      'conflict',
    );
    expect(move.body.errors[0].detail).toContain(`/p1/companies/${company}`);
    await refused(() => gw.request('DELETE', hookPath(company, mirror.id)), 409, 'conflict');
  });
});
