// Black-box HTTP tests of the company webhook endpoints (docs/design.md sections 7 and 9) and of the
// mirror of the v1 webhook_url, against a real gateway on a temp SQLite file.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES, webhookListResponse, webhookResponse } from '../../schemas/v2/webhooks.js';
import type { WebhookEndpointRow } from '../../src/store/resources/webhooks.js';
import { PREVIOUS_SECRET_TTL_MS, signingSecrets, wantsEvent } from '../../src/domain/webhook-endpoints.js';
import {
  expectErrorShape,
  failingFields,
  startTestGateway,
  type TestGateway,
  type TestResponse,
} from '../helpers/gateway.js';
import { compileSchema } from '../helpers/schemas.js';
import { newCompany } from '../helpers/seed.js';

type Body = Record<string, unknown>;

let gw: TestGateway;
/** Every secret answered in this file: none may reach a list, a show or the log. */
const shownSecrets: string[] = [];

beforeAll(async () => {
  gw = await startTestGateway();
});

afterAll(async () => {
  await gw?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers

const validateWebhook = compileSchema(webhookResponse);
const validateList = compileSchema(webhookListResponse);

const hooksPath = (companyId: number | string) => `/api/p2/companies/${companyId}/webhooks`;
const hookPath = (companyId: number | string, id: number | string) => `${hooksPath(companyId)}/${id}`;

interface Hook {
  id: number;
  company_id: number;
  source: 'company' | 'api';
  url: string;
  event_types: string[] | null;
  active: boolean;
  disabled_reason: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
  secret?: string;
}

function expectHook(res: TestResponse, status = 200): Hook {
  expect(res.status, res.text).toBe(status);
  expect(validateWebhook(res.body), JSON.stringify(validateWebhook.errors)).toBe(true);
  const hook = res.body.webhook as Hook;
  if (hook.secret !== undefined) shownSecrets.push(hook.secret);
  return hook;
}

async function createHook(companyId: number, body: Body = {}): Promise<Hook> {
  return expectHook(
    await gw.request('POST', hooksPath(companyId), {
      json: { url: `https://example.com/hooks/${randomUUID()}`, ...body },
    }),
    201,
  );
}

async function list(companyId: number, token?: string): Promise<Hook[]> {
  const res = await gw.request('GET', hooksPath(companyId), token === undefined ? {} : { token });
  expect(res.status, res.text).toBe(200);
  expect(validateList(res.body), JSON.stringify(validateList.errors)).toBe(true);
  for (const hook of res.body.webhooks as Hook[]) expect(hook).not.toHaveProperty('secret');
  return res.body.webhooks as Hook[];
}

function rows(companyId: number): WebhookEndpointRow[] {
  return gw.gateway.store.webhooks.list(companyId);
}

function row(id: number): WebhookEndpointRow | undefined {
  return gw.gateway.store.db.prepare('SELECT * FROM webhook_endpoints WHERE id = ?').get(id) as
    WebhookEndpointRow | undefined;
}

function dump(): string {
  return JSON.stringify(gw.gateway.store.db.prepare('SELECT * FROM webhook_endpoints ORDER BY id').all());
}

/** A request that must be refused and must change no endpoint. */
async function refused(send: () => Promise<TestResponse>, status: number, code: string): Promise<TestResponse> {
  const before = dump();
  const res = await send();
  expectErrorShape(res, status, code);
  expect(dump()).toBe(before);
  return res;
}

/** A secret works with the Standard Webhooks library the receivers use. */
function expectUsableSecret(secret: string): void {
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(24);
  const payload = JSON.stringify({ hello: 'world' });
  const signature = new Webhook(secret).sign('evt_1', new Date(), payload);
  const headers = {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
    'webhook-signature': signature,
  };
  expect(new Webhook(secret).verify(payload, headers)).toEqual({ hello: 'world' });
}

// ---------------------------------------------------------------------------------------------
// Create and list

describe('POST /api/p2/companies/:companyId/webhooks', () => {
  it('201 {webhook} with a whsec_ secret shown this once, every event, inactive (pact-im/api-doc content/en/v2/company-webhooks/create-webhook.md)', async () => {
    const company = await newCompany(gw);
    const before = Date.now();
    const hook = await createHook(company, { url: 'https://example.com/in' });
    expect(hook).toEqual({
      id: expect.any(Number),
      company_id: company,
      source: 'api',
      url: 'https://example.com/in',
      event_types: null,
      active: false,
      disabled_reason: null,
      ordering: 'default',
      rate_limit: null,
      previous_secret_expires_at: null,
      created_at: expect.any(String),
      updated_at: hook.created_at,
      secret: expect.any(String),
    });
    expect(Date.parse(hook.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expectUsableSecret(hook.secret!);
    expect(row(hook.id)!.secret).toBe(hook.secret);

    const shown = await list(company);
    expect(shown).toEqual([{ ...hook, secret: undefined }].map(({ secret: _s, ...rest }) => rest));
    const one = expectHook(await gw.request('GET', hookPath(company, hook.id)));
    expect(one).not.toHaveProperty('secret');
  });

  it('gives every endpoint its own secret', async () => {
    const company = await newCompany(gw);
    const a = await createHook(company);
    const b = await createHook(company);
    expect(a.secret).not.toBe(b.secret);
  });

  it('takes event_types from the documented list, and active', async () => {
    const company = await newCompany(gw);
    const hook = await createHook(company, {
      event_types: ['message.create', 'auth.update', 'channel.qr_code', 'job.executed'],
      active: false,
    });
    expect(hook).toMatchObject({
      event_types: ['message.create', 'auth.update', 'channel.qr_code', 'job.executed'],
      active: false,
    });
    const all = await createHook(company, { event_types: [...WEBHOOK_EVENT_TYPES], active: true });
    expect(all.event_types).toEqual([...WEBHOOK_EVENT_TYPES]);
    const everything = await createHook(company, { event_types: null, active: true });
    expect(everything.event_types).toBeNull();
    // What the fan-out reads: every endpoint, the active ones sent to, the inactive one's deliveries held.
    expect(gw.gateway.store.webhooks.list(company).map((r) => [r.id, r.active])).toEqual([
      [hook.id, 0],
      [all.id, 1],
      [everything.id, 1],
    ]);
    expect(wantsEvent(row(hook.id)!, 'auth.update')).toBe(true);
    expect(wantsEvent(row(hook.id)!, 'message.update')).toBe(false);
    expect(wantsEvent(row(everything.id)!, 'message.update')).toBe(true);
  });

  it('accepts a form body with bracketed event_types', async () => {
    const company = await newCompany(gw);
    const res = await gw.request('POST', hooksPath(company), {
      form: 'url=https%3A%2F%2Fexample.com%2Fform&event_types[]=message.create&event_types[]=conversation.update&active=false',
    });
    expect(expectHook(res, 201)).toMatchObject({
      url: 'https://example.com/form',
      event_types: ['message.create', 'conversation.update'],
      active: false,
    });
  });

  it.each<[string, Body, string[]]>([
    ['no url', {}, ['url']],
    ['an empty url', { url: '' }, ['url']],
    ['a relative url', { url: '/hooks' }, ['url']],
    ['an ftp url', { url: 'ftp://example.com/x' }, ['url']],
    ['a url that is not text', { url: 5 }, ['url']],
    ['a url over 2048 characters', { url: `https://example.com/${'x'.repeat(2048)}` }, ['url']],
    [
      'an unknown event type',
      { url: 'https://e.com', event_types: ['message.create', 'message.explode'] },
      ['event_types/1'],
    ],
    ['an empty event_types', { url: 'https://e.com', event_types: [] }, ['event_types']],
    ['duplicate event types', { url: 'https://e.com', event_types: ['auth.update', 'auth.update'] }, ['event_types']],
    ['event_types as text', { url: 'https://e.com', event_types: 'message.create' }, ['event_types']],
    ['active as text in JSON', { url: 'https://e.com', active: 'yes' }, ['active']],
    ['a company_id of another company', { url: 'https://e.com', company_id: 999_999 }, ['company_id']],
    ['several wrong fields', { url: 'x', event_types: 3, active: 1 }, ['url', 'event_types', 'active']],
    ['an unknown ordering', { url: 'https://e.com', ordering: 'fifo' }, ['ordering']],
    ['a rate_limit of 0', { url: 'https://e.com', rate_limit: 0 }, ['rate_limit']],
    ['a fractional rate_limit', { url: 'https://e.com', rate_limit: 2.5 }, ['rate_limit']],
    ['a rate_limit over 1000', { url: 'https://e.com', rate_limit: 1001 }, ['rate_limit']],
    ['a rate_limit as text in JSON', { url: 'https://e.com', rate_limit: '5' }, ['rate_limit']],
  ])('422 for %s, one entry per field, nothing stored', async (_name, body, fields) => {
    const company = await newCompany(gw);
    const res = await refused(() => gw.request('POST', hooksPath(company), { json: body }), 422, 'validation_failed');
    expect(failingFields(res).sort()).toEqual([...fields].sort());
  });

  it('400 for malformed JSON', async () => {
    const company = await newCompany(gw);
    await refused(() => gw.request('POST', hooksPath(company), { json: '{"url":' }), 400, 'bad_request');
  });

  it('takes strict ordering and a rate limit, shows them, and changes or clears them on update', async () => {
    const company = await newCompany(gw);
    const hook = await createHook(company, { ordering: 'strict', rate_limit: 10 });
    expect(hook).toMatchObject({ ordering: 'strict', rate_limit: 10 });
    expect(row(hook.id)).toMatchObject({ ordering: 'strict', rate_limit: 10 });
    const cleared = expectHook(
      await gw.request('PATCH', hookPath(company, hook.id), { json: { ordering: 'default', rate_limit: null } }),
    );
    expect(cleared).toMatchObject({ ordering: 'default', rate_limit: null });
    // A field not sent keeps its value.
    expectHook(await gw.request('PATCH', hookPath(company, hook.id), { json: { rate_limit: 3 } }));
    expect(expectHook(await gw.request('PUT', hookPath(company, hook.id), { json: { active: false } }))).toMatchObject({
      ordering: 'default',
      rate_limit: 3,
      active: false,
    });
    const res = await refused(
      () => gw.request('PATCH', hookPath(company, hook.id), { json: { ordering: 'lifo', rate_limit: -1 } }),
      422,
      'validation_failed',
    );
    expect(failingFields(res).sort()).toEqual(['ordering', 'rate_limit']);
  });
});

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

// ---------------------------------------------------------------------------------------------
// Update, delete, rotate

describe('PUT and PATCH /api/p2/companies/:companyId/webhooks/:id', () => {
  it.each(['PUT', 'PATCH'])('%s changes the fields sent and keeps the others and the secret', async (method) => {
    const company = await newCompany(gw);
    const hook = await createHook(company, { event_types: ['message.create'] });
    const send = (json: Body) => gw.request(method, hookPath(company, hook.id), { json });

    const moved = expectHook(await send({ url: 'https://example.com/moved' }));
    expect(moved).toMatchObject({ url: 'https://example.com/moved', event_types: ['message.create'], active: false });
    expect(moved).not.toHaveProperty('secret');
    expect(expectHook(await send({ event_types: ['auth.create', 'auth.delete'] })).event_types).toEqual([
      'auth.create',
      'auth.delete',
    ]);
    expect(expectHook(await send({ event_types: null })).event_types).toBeNull();
    expect(expectHook(await send({ active: false })).active).toBe(false);
    expect(expectHook(await send({})).url).toBe('https://example.com/moved');
    expect(row(hook.id)!.secret).toBe(hook.secret);
  });

  it('re-activating an endpoint that cannot answer the test POST is refused and keeps the reason it was disabled for', async () => {
    const company = await newCompany(gw);
    const hook = await createHook(company);
    gw.gateway.store.db
      .prepare("UPDATE webhook_endpoints SET active = 0, disabled_reason = 'gone (410)' WHERE id = ?")
      .run(hook.id);
    expect(expectHook(await gw.request('GET', hookPath(company, hook.id)))).toMatchObject({
      active: false,
      disabled_reason: 'gone (410)',
    });
    // A private address, not allow-listed here (stored directly: the API refuses it as a url): the
    // test POST is refused before it connects.
    gw.gateway.store.db.prepare("UPDATE webhook_endpoints SET url = 'http://10.0.0.1/x' WHERE id = ?").run(hook.id);
    const res = await refused(
      () => gw.request('PATCH', hookPath(company, hook.id), { json: { active: true } }),
      422,
      'validation_failed',
    );
    expect(failingFields(res)).toEqual(['active']);
    // test/api/webhook-endpoints-compat.test.ts re-activates one through a receiver that answers.
  });

  it.each<[string, Body, string[]]>([
    ['a relative url', { url: 'hooks' }, ['url']],
    ['an unknown event type', { event_types: ['auth.explode'] }, ['event_types/0']],
    ['active as a number', { active: 0 }, ['active']],
    ['another company_id', { company_id: 999_999 }, ['company_id']],
  ])('422 for %s, changing nothing', async (_name, body, fields) => {
    const company = await newCompany(gw);
    const hook = await createHook(company);
    const res = await refused(
      () => gw.request('PATCH', hookPath(company, hook.id), { json: body }),
      422,
      'validation_failed',
    );
    expect(failingFields(res).sort()).toEqual(fields.sort());
  });
});

describe('DELETE /api/p2/companies/:companyId/webhooks/:id', () => {
  it('removes the endpoint and answers 204 without a body (pact-im/api-doc content/en/v2/company-webhooks/delete-webhook.md); then 404', async () => {
    const company = await newCompany(gw);
    const keep = await createHook(company);
    const hook = await createHook(company);
    const res = await gw.request('DELETE', hookPath(company, hook.id));
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect((await list(company)).map((h) => h.id)).toEqual([keep.id]);
    expect(row(hook.id)).toBeUndefined();
    for (const [method, suffix] of [
      ['DELETE', ''],
      ['GET', ''],
      ['PUT', ''],
      ['PATCH', ''],
      ['POST', '/rotate_secret'],
    ] as const) {
      await refused(
        () => gw.request(method, `${hookPath(company, hook.id)}${suffix}`, { json: { active: true } }),
        404,
        'not_found',
      );
    }
  });
});

describe('POST /api/p2/companies/:companyId/webhooks/:id/rotate_secret', () => {
  it('shows a new secret once; the old one keeps signing for 24 hours', async () => {
    const company = await newCompany(gw);
    const hook = await createHook(company);
    const before = Date.now();
    const rotated = expectHook(await gw.request('POST', `${hookPath(company, hook.id)}/rotate_secret`));
    expect(rotated.secret).not.toBe(hook.secret);
    expectUsableSecret(rotated.secret!);
    const expires = Date.parse(rotated.previous_secret_expires_at!);
    expect(expires).toBeGreaterThanOrEqual(before + PREVIOUS_SECRET_TTL_MS - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + PREVIOUS_SECRET_TTL_MS);

    const stored = row(hook.id)!;
    expect(stored).toMatchObject({ secret: rotated.secret, previous_secret: hook.secret });
    expect(signingSecrets(stored)).toEqual([rotated.secret, hook.secret]);
    expect(signingSecrets(stored, expires + 1)).toEqual([rotated.secret]);

    const shown = await list(company);
    expect(shown[0]!.previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);
    expect(JSON.stringify(shown)).not.toContain(rotated.secret!);
    expect(JSON.stringify(shown)).not.toContain(hook.secret!);

    // A second rotation retires the first secret at once.
    const again = expectHook(await gw.request('POST', `${hookPath(company, hook.id)}/rotate_secret`));
    expect(signingSecrets(row(hook.id)!)).toEqual([again.secret, rotated.secret]);
  });

  it('gives the company endpoint a secret its owner can see', async () => {
    const company = await newCompany(gw, { webhook_url: 'https://example.com/v1' });
    const mirror = rows(company)[0]!;
    const rotated = expectHook(await gw.request('POST', `${hookPath(company, mirror.id)}/rotate_secret`));
    expect(rotated).toMatchObject({ source: 'company', secret: row(mirror.id)!.secret });
  });
});

// ---------------------------------------------------------------------------------------------
// Tokens, accounts, secrets

describe('401 without a valid token', () => {
  it('reads the token from the header, the query or the body', async () => {
    const company = await newCompany(gw);
    expect((await gw.request('GET', hooksPath(company))).status).toBe(200);
    expect(
      (
        await gw.request('GET', `${hooksPath(company)}?private_api_token=${encodeURIComponent(gw.token)}`, {
          token: null,
        })
      ).status,
    ).toBe(200);
    const viaBody = await gw.request('POST', hooksPath(company), {
      token: null,
      json: { private_api_token: gw.token, url: 'https://example.com/b' },
    });
    expectHook(viaBody, 201);
  });

  it.each<[string, string, Body | undefined]>([
    ['GET', '', undefined],
    ['POST', '', { url: 'https://example.com/x' }],
    ['GET', '/1', undefined],
    ['PUT', '/1', { active: false }],
    ['PATCH', '/1', { active: false }],
    ['DELETE', '/1', undefined],
    ['POST', '/1/rotate_secret', {}],
  ])('%s %s refuses a missing or wrong token and changes nothing', async (method, suffix, json) => {
    const company = await newCompany(gw);
    await createHook(company);
    const path = `${hooksPath(company)}${suffix.replace('/1', `/${rows(company)[0]!.id}`)}`;
    await refused(() => gw.request(method, path, { token: null, json }), 401, 'unauthorized');
    await refused(() => gw.request(method, path, { token: 'gwk_wrong', json }), 401, 'unauthorized');
    await refused(
      () => gw.request(method, `${path}?private_api_token=gwk_wrong`, { token: null, json }),
      401,
      'unauthorized',
    );
    await refused(
      () => gw.request(method, path, { token: null, json: { ...json, private_api_token: 'gwk_wrong' } }),
      401,
      'unauthorized',
    );
  });
});

describe("another account's company and endpoints are not found", () => {
  it('answers 404 like a missing id on every route and changes nothing', async () => {
    const company = await newCompany(gw, { webhook_url: 'https://example.com/v1' });
    const hook = await createHook(company);
    const stranger = await gw.createAccount('stranger');
    const routes: [string, string, Body | undefined][] = [
      ['GET', hooksPath(company), undefined],
      ['POST', hooksPath(company), { url: 'https://evil.example.com' }],
      ['GET', hookPath(company, hook.id), undefined],
      ['PUT', hookPath(company, hook.id), { url: 'https://evil.example.com' }],
      ['PATCH', hookPath(company, hook.id), { active: false }],
      ['DELETE', hookPath(company, hook.id), undefined],
      ['POST', `${hookPath(company, hook.id)}/rotate_secret`, {}],
    ];
    for (const [method, path, json] of routes) {
      const foreign = await refused(() => gw.request(method, path, { token: stranger, json }), 404, 'not_found');
      expect(foreign.text).not.toContain(hook.secret!);
      const missing = await gw.request(method, path.replace(`/companies/${company}/`, '/companies/999999/'), {
        token: stranger,
        json,
      });
      expectErrorShape(missing, 404, 'not_found');
      expect(foreign.body.errors[0].detail.replace(String(company), 'N')).toBe(
        missing.body.errors[0].detail.replace('999999', 'N'),
      );
    }
    // Nor through their own company.
    const theirs = await newCompany(gw, {}, stranger);
    await refused(
      () => gw.request('POST', `${hookPath(theirs, hook.id)}/rotate_secret`, { token: stranger }),
      404,
      'not_found',
    );
    // And an endpoint of another company of the same account is not found under this one.
    const sibling = await newCompany(gw);
    await refused(() => gw.request('DELETE', hookPath(sibling, hook.id)), 404, 'not_found');
  });
});

describe('secrets', () => {
  it('no secret shown at creation or rotation appears in a list, a show or the log', async () => {
    expect(shownSecrets.length).toBeGreaterThan(10);
    const companies = gw.gateway.store.db.prepare('SELECT DISTINCT company_id FROM webhook_endpoints').all() as {
      company_id: number;
    }[];
    const texts: string[] = [];
    for (const { company_id } of companies) {
      const res = await gw.request('GET', hooksPath(company_id));
      if (res.status === 200) texts.push(res.text);
      for (const hook of (res.body?.webhooks ?? []) as Hook[])
        texts.push((await gw.request('GET', hookPath(company_id, hook.id))).text);
    }
    expect(texts.length).toBeGreaterThan(10);
    const log = gw.logText();
    const stored = (
      gw.gateway.store.db.prepare('SELECT secret FROM webhook_endpoints').all() as { secret: string }[]
    ).map((r) => r.secret);
    for (const s of [...shownSecrets, ...stored]) {
      for (const text of texts) expect(text).not.toContain(s);
      expect(log).not.toContain(s);
    }
  });
});
