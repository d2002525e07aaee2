// Black-box HTTP tests of the v2 auths (contract section 4 "v2 Auths", section 6 events;
// docs/design.md section 9 for the paths) against a real gateway on a temp SQLite file.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authEvent } from '../../schemas/events/auth.js';
import { AUTHS_MAX_PER_PAGE, authListResponse, authResponse } from '../../schemas/v2/auths.js';
import { planAuthAction } from '../../src/domain/auths.js';
import type { OutboxRow } from '../../src/store/pipeline/outbox.js';
import { emittedEvents } from '../helpers/events.js';
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
/** Every distinctive secret sent by this file: none may reach an answer, an event or the log. */
const allSecrets: string[] = [];

beforeAll(async () => {
  gw = await startTestGateway();
});

afterAll(async () => {
  await gw?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers

const validateEvent = compileSchema(authEvent);
const validateAuthResponse = compileSchema(authResponse);
const validateListResponse = compileSchema(authListResponse);

const DAY = 24 * 60 * 60 * 1000;
const isoAgo = (ms: number) => new Date(Date.now() - ms).toISOString();

function secret(label = 'secret'): string {
  const value = `S3CRET-${label}-${randomUUID()}`;
  allSecrets.push(value);
  return value;
}

const authsPath = (companyId: number | string) => `/api/p2/companies/${companyId}/auths`;
const authPath = (companyId: number | string, id: number | string) => `${authsPath(companyId)}/${id}`;

function create(companyId: number | string, body: Body, token?: string): Promise<TestResponse> {
  return gw.request('POST', authsPath(companyId), { json: body, ...(token === undefined ? {} : { token }) });
}

interface Auth {
  id: number;
  company_id: number;
  provider: string;
  state: string;
  confirmation: string | null;
  settings: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

function expectAuthAnswer(res: TestResponse, status = 200): Auth {
  expect(res.status, res.text).toBe(status);
  expect(validateAuthResponse(res.body), JSON.stringify(validateAuthResponse.errors)).toBe(true);
  return res.body.auth as Auth;
}

async function created(companyId: number, body: Body): Promise<Auth> {
  return expectAuthAnswer(await create(companyId, body), 201);
}

interface AuthEvent {
  id: string;
  event: 'create' | 'update' | 'delete';
  type: 'auth';
  created_at: string;
  object: Auth;
}

/** Every outbox row, published or not (a relay may have published some already). */
function outboxRows(): OutboxRow[] {
  return gw.gateway.store.db.prepare('SELECT * FROM outbox ORDER BY id').all() as OutboxRow[];
}

/** Every auth event in the outbox, oldest first (the bodies companies receive), each validated against its schema. */
function authEvents(): AuthEvent[] {
  return emittedEvents(gw.gateway.store)
    .filter((record) => record.body.type === 'auth')
    .map((record) => record.body as unknown as AuthEvent);
}

function eventsOf(authId: number): AuthEvent[] {
  return authEvents().filter((e) => e.object.id === authId);
}

function outboxCount(): number {
  return (gw.gateway.store.db.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
}

function channelCount(): number {
  return (gw.gateway.store.db.prepare('SELECT count(*) AS n FROM channels').get() as { n: number }).n;
}

function storedState(id: number): { state: string; deleted_at: number | null } {
  return gw.gateway.store.db.prepare('SELECT state, deleted_at FROM channels WHERE id = ?').get(id) as {
    state: string;
    deleted_at: number | null;
  };
}

/** A request that must be refused and must change nothing: no channel, no state, no event. */
async function refused(send: () => Promise<TestResponse>, status: number, code: string): Promise<TestResponse> {
  const channels = JSON.stringify(gw.gateway.store.db.prepare('SELECT * FROM channels ORDER BY id').all());
  const events = outboxCount();
  const res = await send();
  expectErrorShape(res, status, code);
  expect(JSON.stringify(gw.gateway.store.db.prepare('SELECT * FROM channels ORDER BY id').all())).toBe(channels);
  expect(outboxCount()).toBe(events);
  return res;
}

const action = (method: string, companyId: number, id: number, name: string, json?: Body) =>
  gw.request(method, `${authPath(companyId, id)}/${name}`, json === undefined ? {} : { json });

// ---------------------------------------------------------------------------------------------
// Create

const variants: [string, () => Body, string, string | null, Body][] = [
  ['chat_d QR', () => ({ provider: 'chat_d' }), 'unconfirmed', 'qr', {}],
  ['chat_a QR', () => ({ provider: 'chat_a' }), 'unconfirmed', 'qr', {}],
  [
    'chat_a digital code',
    () => ({ provider: 'chat_a', phone: '79161234567' }),
    'unconfirmed',
    'pairing_code',
    { phone: '79161234567' },
  ],
  [
    'chat_a_business by token',
    () => ({ provider: 'chat_a_business', hosting_type: 'cloud', token: secret(), subtype: 'unlim' }),
    'enabled',
    null,
    { hosting_type: 'cloud', subtype: 'unlim' },
  ],
  [
    'chat_a_business by vendor_channel_id',
    () => ({
      provider: 'chat_a_business',
      hosting_type: 'onpremise',
      vendor_channel_id: 'vc-1',
      vendor_client_id: 'cl-1',
      account_name: 'Main',
    }),
    'enabled',
    null,
    { hosting_type: 'onpremise', vendor_channel_id: 'vc-1', vendor_client_id: 'cl-1', account_name: 'Main' },
  ],
  [
    'market_a',
    () => ({ provider: 'market_a', login: secret('login'), password: secret('password') }),
    'enabled',
    null,
    {},
  ],
  ...(['social_b', 'social_a', 'social_a_direct', 'chat_b', 'chat_c'] as const).map(
    (provider): [string, () => Body, string, string | null, Body] => [
      provider,
      () => ({ provider, token: secret() }),
      'enabled',
      null,
      {},
    ],
  ),
  [
    'social_c_business',
    () => ({
      provider: 'social_c_business',
      token: secret(),
      phone: '79161234567',
      data: { id: '1', access: secret('data') },
    }),
    'enabled',
    null,
    { phone: '79161234567' },
  ],
  [
    'chat_b_personal by QR',
    () => ({ provider: 'chat_b_personal', via_qr_code: true }),
    'unconfirmed',
    'qr',
    { via_qr_code: true },
  ],
  [
    'chat_b_personal by phone',
    () => ({ provider: 'chat_b_personal', phone: '+79161234567' }),
    'unconfirmed',
    'code',
    { phone: '79161234567' },
  ],
  [
    'social_c',
    () => ({ provider: 'social_c', login: secret('login'), password: secret('password') }),
    'unconfirmed',
    'code',
    {},
  ],
];

describe('POST /api/p2/companies/:companyId/auths', () => {
  it.each(variants)(
    '%s: 201 {auth}, its initial state, no credential, and a create event',
    async (_name, body, state, confirmation, settings) => {
      const company = await newCompany(gw);
      const sent = body();
      const before = Date.now();
      const auth = await created(company, sent);
      expect(auth).toEqual({
        id: expect.any(Number),
        company_id: company,
        provider: sent.provider,
        state,
        // pact-im/api-doc content/ru/v2/auths/index.md: the documented fields are always present.
        phone_number: typeof settings.phone === 'string' ? settings.phone : null,
        username: null,
        confirmation,
        settings,
        created_at: expect.any(String),
        updated_at: auth.created_at,
        sync_messages_at: null,
        pages: null,
      });
      expect(Date.parse(auth.created_at)).toBeGreaterThanOrEqual(before - 1000);
      const events = eventsOf(auth.id);
      expect(events.map((e) => e.event)).toEqual(['create']);
      expect(events[0]!.object).toEqual(auth);
      // The same entity as a v1 channel.
      const v1 = await gw.request('GET', `/p1/companies/${company}/channels`);
      expect(v1.body.data.channels).toEqual([{ external_id: auth.id, provider: sent.provider }]);
    },
  );

  it('keeps sync_messages_from as an ISO timestamp setting', async () => {
    const from = isoAgo(DAY);
    const auth = await created(await newCompany(gw), { provider: 'chat_d', sync_messages_from: from });
    expect(auth.settings).toEqual({ sync_messages_from: new Date(Date.parse(from)).toISOString() });
  });

  it('accepts a form body', async () => {
    const auth = expectAuthAnswer(
      await gw.request('POST', authsPath(await newCompany(gw)), { form: 'provider=chat_b_personal&via_qr_code=true' }),
      201,
    );
    expect(auth).toMatchObject({ provider: 'chat_b_personal', settings: { via_qr_code: true } });
  });

  it('reads phone_number, the contract’s v2 name, as phone', async () => {
    const auth = await created(await newCompany(gw), { provider: 'chat_b_personal', phone_number: '79161234567' });
    expect(auth).toMatchObject({ confirmation: 'code', settings: { phone: '79161234567' } });
    const chatA = await created(await newCompany(gw), { provider: 'chat_a', phone_number: '79161234567' });
    expect(chatA).toMatchObject({ confirmation: 'pairing_code', settings: { phone: '79161234567' } });
  });

  it('names phone_number when it is the field that is wrong, and refuses both names at once', async () => {
    const company = await newCompany(gw);
    const bad = await refused(
      () => create(company, { provider: 'chat_a', phone_number: '+7916' }),
      422,
      'validation_failed',
    );
    expect(failingFields(bad)).toEqual(['phone_number']);
    expect(bad.body.errors[0].detail).toMatch(/^phone_number must be/);
    const both = await refused(
      () => create(company, { provider: 'chat_a', phone: '79161234567', phone_number: '79161234567' }),
      422,
      'validation_failed',
    );
    expect(failingFields(both)).toEqual(['phone_number']);
  });

  it('keeps only the variant’s own fields: unknown ones are ignored and never stored', async () => {
    const s = secret('unknown');
    const auth = await created(await newCompany(gw), {
      provider: 'chat_b',
      token: secret(),
      access_key: s,
      nested: { s },
    });
    expect(auth.settings).toEqual({});
    const stored = gw.gateway.store.db
      .prepare('SELECT settings, credentials FROM channels WHERE id = ?')
      .get(auth.id) as Body;
    expect(JSON.stringify(stored)).not.toContain(s);
  });

  it.each<[string, Body, string[]]>([
    ['no provider', {}, ['provider']],
    ['an unknown provider', { provider: 'fax' }, ['provider']],
    ['a provider that is not a string', { provider: 7 }, ['provider']],
    ['a token provider without token', { provider: 'chat_b' }, ['token']],
    ['an empty token', { provider: 'chat_c', token: '' }, ['token']],
    ['a token that is a number', { provider: 'social_b', token: 5 }, ['token']],
    // (chat_a_business with provider alone is an OAuth create: test/compat/auths-v2.test.ts.)
    [
      'chat_a_business with a subtype but neither hosting_type nor token nor vendor_channel_id',
      { provider: 'chat_a_business', subtype: 'unlim' },
      ['hosting_type', 'vendor_channel_id'],
    ],
    [
      'chat_a_business with a hosting_type out of the list',
      { provider: 'chat_a_business', hosting_type: 'hybrid', token: 't' },
      ['hosting_type'],
    ],
    [
      'chat_a_business with an unknown subtype',
      { provider: 'chat_a_business', hosting_type: 'cloud', token: 't', subtype: 'x' },
      ['subtype'],
    ],
    ['market_a without password', { provider: 'market_a', login: 'l' }, ['password']],
    [
      'social_c_business with text data',
      { provider: 'social_c_business', token: 't', phone: '1', data: 'x' },
      ['data'],
    ],
    ['chat_b_personal with neither phone nor via_qr_code', { provider: 'chat_b_personal' }, ['via_qr_code']],
    ['chat_b_personal with via_qr_code false', { provider: 'chat_b_personal', via_qr_code: false }, ['via_qr_code']],
    ['chat_a with a plus in the phone', { provider: 'chat_a', phone: '+79161234567' }, ['phone']],
    [
      'sync_messages_from that is not a timestamp',
      { provider: 'chat_d', sync_messages_from: 'yesterday' },
      ['sync_messages_from'],
    ],
    [
      'sync_messages_from older than a month',
      { provider: 'chat_d', sync_messages_from: isoAgo(40 * DAY) },
      ['sync_messages_from'],
    ],
    ['company_id of another company', { provider: 'chat_d', company_id: 999_999 }, ['company_id']],
    ['company_id that is text in JSON', { provider: 'chat_d', company_id: 'x' }, ['company_id']],
    ['a wrong company_id and no provider', { company_id: 999_999 }, ['company_id', 'provider']],
    [
      'a wrong company_id and a bad variant',
      { company_id: 'x', provider: 'chat_b', token: 5 },
      ['company_id', 'token'],
    ],
    ['a phone_number that is not text', { provider: 'chat_b_personal', phone_number: 5 }, ['phone_number']],
  ])('422 for %s, one entry per field, nothing stored', async (_name, body, fields) => {
    const company = await newCompany(gw);
    const res = await refused(() => create(company, body), 422, 'validation_failed');
    expect(failingFields(res).sort()).toEqual([...fields].sort());
  });

  it('accepts the company_id of the path', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_d', company_id: company });
    expect(auth.company_id).toBe(company);
  });

  it('400 for malformed JSON and for a body that is not an object', async () => {
    const company = await newCompany(gw);
    await refused(() => gw.request('POST', authsPath(company), { json: '{"provider": ' }), 400, 'bad_request');
    await refused(() => gw.request('POST', authsPath(company), { json: '["chat_d"]' }), 400, 'bad_request');
  });

  it('409 for a second live auth of a provider, created by v1 or v2; a deleted one frees the slot', async () => {
    const company = await newCompany(gw);
    const first = await created(company, { provider: 'chat_d' });
    await refused(() => create(company, { provider: 'chat_d' }), 409, 'conflict');
    const v1 = await gw.request('POST', `/p1/companies/${company}/channels`, {
      json: { provider: 'chat_b', token: 't' },
    });
    expect(v1.status).toBe(201);
    await refused(() => create(company, { provider: 'chat_b', token: 't2' }), 409, 'conflict');

    expect((await gw.request('DELETE', authPath(company, first.id))).status).toBe(200);
    const second = await created(company, { provider: 'chat_d' });
    expect(second.id).not.toBe(first.id);
  });
});

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

// ---------------------------------------------------------------------------------------------
// State machine

describe('enable and disable (PUT and PATCH)', () => {
  it.each(['PUT', 'PATCH'])(
    '%s: enabled → disabled → enabled, each with an update event carrying the state',
    async (method) => {
      const company = await newCompany(gw);
      const auth = await created(company, { provider: 'chat_b', token: secret() });

      const disabled = expectAuthAnswer(await action(method, company, auth.id, 'disable'));
      expect(disabled.state).toBe('disabled');
      expect(storedState(auth.id).state).toBe('disabled');
      expect((await gw.request('GET', authPath(company, auth.id))).body.auth.state).toBe('disabled');

      const enabled = expectAuthAnswer(await action(method, company, auth.id, 'enable', { code: '123' }));
      expect(enabled.state).toBe('enabled');
      expect(Date.parse(enabled.updated_at)).toBeGreaterThanOrEqual(Date.parse(disabled.updated_at));

      const events = eventsOf(auth.id);
      expect(events.map((e) => [e.event, e.object.state])).toEqual([
        ['create', 'enabled'],
        ['update', 'disabled'],
        ['update', 'enabled'],
      ]);
      expect(events[1]!.object).toEqual(disabled);
      expect(events[2]!.object).toEqual(enabled);
      // A disabled auth still holds its provider's slot.
    },
  );

  it('409 for enable on an enabled auth and disable on a disabled one, changing nothing', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'market_a', login: 'l', password: 'p' });
    expect(
      (await refused(() => action('PUT', company, auth.id, 'enable'), 409, 'conflict')).body.errors[0].detail,
    ).toMatch(/already enabled/);
    await action('PATCH', company, auth.id, 'disable');
    expect(
      (await refused(() => action('PATCH', company, auth.id, 'disable'), 409, 'conflict')).body.errors[0].detail,
    ).toMatch(/already disabled/);
  });

  it('409 for disable on an unconfirmed auth (nothing is connected yet)', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_d' });
    const res = await refused(() => action('PUT', company, auth.id, 'disable'), 409, 'conflict');
    expect(res.body.errors[0].detail).toMatch(/not connected yet/);
  });

  it.each<[string, Body]>([
    ['chat_d (QR)', { provider: 'chat_d' }],
    ['chat_a (QR)', { provider: 'chat_a' }],
    ['chat_a (pairing code)', { provider: 'chat_a', phone: '79161234567' }],
    ['chat_b_personal (QR)', { provider: 'chat_b_personal', via_qr_code: true }],
  ])('409 for enable on an unconfirmed %s auth: the phone confirms it, not a code', async (_name, body) => {
    const company = await newCompany(gw);
    const auth = await created(company, body);
    await refused(() => action('PUT', company, auth.id, 'enable', { code: '12345' }), 409, 'conflict');
    expect(storedState(auth.id).state).toBe('unconfirmed');
  });

  it.each<[string, Body]>([
    ['chat_b_personal (code)', { provider: 'chat_b_personal', phone: '79161234567' }],
    ['social_c (code)', { provider: 'social_c', login: 'l', password: 'p' }],
  ])(
    'an unconfirmed %s auth: enable needs code (422), and with it answers 503 while no connector is configured',
    async (_name, body) => {
      const company = await newCompany(gw);
      const auth = await created(company, body);
      const missing = await refused(() => action('PATCH', company, auth.id, 'enable'), 422, 'validation_failed');
      expect(failingFields(missing)).toEqual(['code']);
      for (const code of [true, { x: 1 }, '', 'has spaces', -1, 1.5]) {
        expect(
          failingFields(
            await refused(() => action('PATCH', company, auth.id, 'enable', { code }), 422, 'validation_failed'),
          ),
        ).toEqual(['code']);
      }
      for (const code of ['12345', 12345]) {
        const res = await refused(
          () => action('PUT', company, auth.id, 'enable', { code }),
          503,
          'service_unavailable',
        );
        expect(res.body.errors[0].detail).toMatch(/GATEWAY_CONNECTOR_URL/);
      }
      expect(storedState(auth.id).state).toBe('unconfirmed');
    },
  );

  it('reads a code sent as form text', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_b_personal', phone: '79161234567' });
    await refused(
      () => gw.request('PUT', `${authPath(company, auth.id)}/enable`, { form: 'code=54321' }),
      503,
      'service_unavailable',
    );
  });

  it('422 for a company_id that is not the path’s', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_b', token: 't' });
    expect(
      failingFields(
        await refused(
          () => action('PUT', company, auth.id, 'disable', { company_id: company + 1000 }),
          422,
          'validation_failed',
        ),
      ),
    ).toEqual(['company_id']);
    expectAuthAnswer(await action('PUT', company, auth.id, 'disable', { company_id: company }));
  });
});

describe('POST .../auths/:id/confirm', () => {
  it.each<[string, Body]>([
    ['chat_d', { provider: 'chat_d' }],
    ['chat_a', { provider: 'chat_a' }],
    ['chat_b_personal (code)', { provider: 'chat_b_personal', phone: '79161234567' }],
  ])('an unconfirmed %s auth answers 503 while no connector is configured, changing nothing', async (_name, body) => {
    const company = await newCompany(gw);
    const auth = await created(company, body);
    const res = await refused(() => action('POST', company, auth.id, 'confirm'), 503, 'service_unavailable');
    expect(res.body.errors[0].detail).toMatch(/GATEWAY_CONNECTOR_URL/);
  });

  it('409 for an enabled or disabled auth', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_c', token: 't' });
    expect(
      (await refused(() => action('POST', company, auth.id, 'confirm'), 409, 'conflict')).body.errors[0].detail,
    ).toMatch(/already confirmed/);
    await action('PUT', company, auth.id, 'disable');
    expect(
      (await refused(() => action('POST', company, auth.id, 'confirm'), 409, 'conflict')).body.errors[0].detail,
    ).toMatch(/disabled/);
  });
});

describe('the state machine, action by state', () => {
  const auth = (provider: string, state: 'unconfirmed' | 'enabled' | 'disabled', settings: Body = {}) => ({
    id: 1,
    provider,
    state,
    settings,
  });

  it.each<[string, ReturnType<typeof auth>, 'confirm' | 'enable' | 'disable', string | undefined, string]>([
    ['enable disabled', auth('chat_b', 'disabled'), 'enable', undefined, 'move:enabled'],
    ['enable disabled session auth', auth('chat_d', 'disabled'), 'enable', undefined, 'move:enabled'],
    ['disable enabled', auth('chat_b', 'enabled'), 'disable', undefined, 'move:disabled'],
    ['enable enabled', auth('chat_b', 'enabled'), 'enable', undefined, 'refuse'],
    ['disable disabled', auth('chat_b', 'disabled'), 'disable', undefined, 'refuse'],
    ['disable unconfirmed', auth('chat_d', 'unconfirmed'), 'disable', undefined, 'refuse'],
    ['confirm enabled', auth('chat_b', 'enabled'), 'confirm', undefined, 'refuse'],
    ['confirm disabled', auth('chat_d', 'disabled'), 'confirm', undefined, 'refuse'],
    ['confirm unconfirmed', auth('chat_d', 'unconfirmed'), 'confirm', undefined, 'needs_connector'],
    ['enable unconfirmed qr', auth('chat_d', 'unconfirmed'), 'enable', '1', 'refuse'],
    ['enable unconfirmed pairing code', auth('chat_a', 'unconfirmed', { phone: '7' }), 'enable', '1', 'refuse'],
    [
      'enable unconfirmed code without code',
      auth('chat_b_personal', 'unconfirmed', { phone: '7' }),
      'enable',
      undefined,
      'needs_code',
    ],
    ['enable unconfirmed code with code', auth('social_c', 'unconfirmed'), 'enable', '1', 'needs_connector'],
  ])('%s', (_name, current, name, code, expected) => {
    const plan = planAuthAction(current, name, code);
    expect(plan.kind === 'move' ? `move:${plan.to}` : plan.kind).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// Delete

describe('DELETE /api/p2/companies/:companyId/auths/:id', () => {
  it.each<[string, Body, string | undefined]>([
    ['an enabled auth', { provider: 'chat_b', token: 't' }, undefined],
    ['an unconfirmed auth', { provider: 'chat_d' }, undefined],
    ['a disabled auth', { provider: 'chat_c', token: 't' }, 'disable'],
  ])('deletes %s: {auth} disabled, a delete event, then 404 everywhere', async (_name, body, first) => {
    const company = await newCompany(gw);
    const auth = await created(company, body);
    if (first !== undefined) expectAuthAnswer(await action('PUT', company, auth.id, first));

    const res = await gw.request('DELETE', authPath(company, auth.id));
    const removed = expectAuthAnswer(res);
    expect(removed).toMatchObject({ id: auth.id, state: 'disabled' });
    expect(storedState(auth.id).deleted_at).not.toBeNull();
    const events = eventsOf(auth.id);
    expect(events.at(-1)).toMatchObject({ event: 'delete', object: removed });

    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/confirm'],
      ['PUT', '/enable'],
      ['PATCH', '/enable'],
      ['PUT', '/disable'],
      ['PATCH', '/disable'],
    ] as const) {
      await refused(
        () => gw.request(method, `${authPath(company, auth.id)}${suffix}`, { json: { code: '1' } }),
        404,
        'not_found',
      );
    }
    expect((await gw.request('GET', authsPath(company))).body.auths).toEqual([]);
    expect(eventsOf(auth.id)).toHaveLength(events.length);
  });
});

// ---------------------------------------------------------------------------------------------
// v1 channels write the same events

describe('v1 channel create and DELETE write auth events', () => {
  it('create and delete through v1 answer as before and write create and delete events', async () => {
    const company = await newCompany(gw);
    const res = await gw.request('POST', `/p1/companies/${company}/channels`, {
      json: { provider: 'chat_a_business', hosting_type: 'cloud', token: secret() },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ status: 'created', data: { external_id: expect.any(Number) } });
    const id = res.body.data.external_id as number;
    const del = await gw.request('DELETE', `/p1/companies/${company}/channels/${id}`);
    expect(del.body).toEqual({ status: 'deleted' });
    const events = eventsOf(id);
    expect(events.map((e) => [e.event, e.object.state])).toEqual([
      ['create', 'enabled'],
      ['delete', 'disabled'],
    ]);
    expect(events[0]!.object).toMatchObject({
      id,
      company_id: company,
      provider: 'chat_a_business',
      settings: { hosting_type: 'cloud' },
    });
  });

  it('a rejected or conflicting v1 create writes no event', async () => {
    const company = await newCompany(gw);
    await gw.request('POST', `/p1/companies/${company}/channels`, { json: { provider: 'chat_d' } });
    await refused(
      () => gw.request('POST', `/p1/companies/${company}/channels`, { json: { provider: 'chat_d' } }),
      409,
      'conflict',
    );
    await refused(
      () => gw.request('POST', `/p1/companies/${company}/channels`, { json: { provider: 'chat_b' } }),
      422,
      'validation_failed',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Tokens, accounts

describe('401 without a valid token', () => {
  it('reads the token from the header, the query or the body', async () => {
    const company = await newCompany(gw);
    const viaHeader = await gw.request('GET', authsPath(company));
    expect(viaHeader.status).toBe(200);
    const viaQuery = await gw.request(
      'GET',
      `${authsPath(company)}?private_api_token=${encodeURIComponent(gw.token)}`,
      { token: null },
    );
    expect(viaQuery.status).toBe(200);
    const viaBody = await gw.request('POST', authsPath(company), {
      token: null,
      json: { private_api_token: gw.token, provider: 'chat_d' },
    });
    expectAuthAnswer(viaBody, 201);
    const viaGetBody = await gw.request('GET', authsPath(company), {
      token: null,
      json: { private_api_token: gw.token },
    });
    expect(viaGetBody.body.auths).toHaveLength(1);
  });

  it.each<[string, string, Body | undefined]>([
    ['GET', '/api/p2/auths', undefined],
    ['GET', '', undefined],
    ['POST', '', { provider: 'chat_d' }],
    ['GET', '/1', undefined],
    ['DELETE', '/1', undefined],
    ['POST', '/1/confirm', {}],
    ['PUT', '/1/enable', { code: '1' }],
    ['PATCH', '/1/disable', {}],
  ])('%s %s without a token or with a wrong one stores nothing', async (method, suffix, json) => {
    const company = await newCompany(gw);
    const path = suffix.startsWith('/api') ? suffix : `${authsPath(company)}${suffix}`;
    const before = channelCount();
    expectErrorShape(await gw.request(method, path, { token: null, json }), 401, 'unauthorized');
    expectErrorShape(await gw.request(method, path, { token: 'gwk_wrong', json }), 401, 'unauthorized');
    expectErrorShape(
      await gw.request(method, `${path}?private_api_token=gwk_wrong`, { token: null, json }),
      401,
      'unauthorized',
    );
    expectErrorShape(
      await gw.request(method, path, { token: null, json: { ...json, private_api_token: 'gwk_wrong' } }),
      401,
      'unauthorized',
    );
    expect(channelCount()).toBe(before);
  });
});

describe("another account's company and auths are not found", () => {
  it('answers 404 like a missing id on every route and changes nothing', async () => {
    const company = await newCompany(gw);
    const auth = await created(company, { provider: 'chat_b', token: secret() });
    const stranger = await gw.createAccount('stranger');
    const routes: [string, string, Body | undefined][] = [
      ['GET', authsPath(company), undefined],
      ['POST', authsPath(company), { provider: 'chat_c', token: 't' }],
      ['GET', authPath(company, auth.id), undefined],
      ['DELETE', authPath(company, auth.id), undefined],
      ['POST', `${authPath(company, auth.id)}/confirm`, {}],
      ['PUT', `${authPath(company, auth.id)}/enable`, {}],
      ['PATCH', `${authPath(company, auth.id)}/disable`, {}],
    ];
    for (const [method, path, json] of routes) {
      const foreign = await refused(() => gw.request(method, path, { token: stranger, json }), 404, 'not_found');
      const missing = await gw.request(method, path.replace(`/companies/${company}/`, '/companies/999999/'), {
        token: stranger,
        json,
      });
      expectErrorShape(missing, 404, 'not_found');
      expect(foreign.body.errors[0].detail.replace(String(company), 'N')).toBe(
        missing.body.errors[0].detail.replace('999999', 'N'),
      );
    }
    // Their own company does not reach this auth either.
    const theirs = await newCompany(gw, {}, stranger);
    await refused(
      () => gw.request('PUT', `${authPath(theirs, auth.id)}/disable`, { token: stranger }),
      404,
      'not_found',
    );
    expect(storedState(auth.id)).toEqual({ state: 'enabled', deleted_at: null });
  });
});

// ---------------------------------------------------------------------------------------------
// Secrets and events

describe('credentials are never shown, evented or logged', () => {
  it('a distinctive secret appears in no answer, no event and no log line', async () => {
    const company = await newCompany(gw);
    const s = secret('distinctive');
    const texts: string[] = [];
    const res = await create(company, {
      provider: 'social_c_business',
      token: s,
      phone: '79161234567',
      data: { id: '9', access_token: s },
    });
    const auth = expectAuthAnswer(res, 201);
    texts.push(res.text);
    expect(
      JSON.stringify(gw.gateway.store.db.prepare('SELECT credentials FROM channels WHERE id = ?').get(auth.id)),
    ).toContain(s);
    texts.push((await create(company, { provider: 'social_c_business', token: s, phone: '1', data: { s } })).text); // 409
    texts.push((await create(company, { provider: 'market_a', login: s })).text); // 422
    texts.push((await gw.request('GET', authsPath(company))).text);
    texts.push((await gw.request('GET', '/api/p2/auths')).text);
    texts.push((await gw.request('GET', authPath(company, auth.id))).text);
    texts.push((await action('PUT', company, auth.id, 'disable', { code: s })).text);
    texts.push((await action('PUT', company, auth.id, 'enable', { code: s })).text);
    texts.push((await gw.request('DELETE', authPath(company, auth.id))).text);
    const events = JSON.stringify(gw.gateway.store.db.prepare('SELECT payload FROM outbox').all());
    for (const text of [...texts, events, gw.logText()]) expect(text).not.toContain(s);
  });

  it('no secret sent anywhere in this file reached the log or an event', () => {
    expect(allSecrets.length).toBeGreaterThan(10);
    const log = gw.logText();
    const events = JSON.stringify(gw.gateway.store.db.prepare('SELECT payload FROM outbox').all());
    expect(allSecrets.filter((s) => log.includes(s) || events.includes(s))).toEqual([]);
  });
});

describe('auth events', () => {
  it('every auth event written by this file validates against schemas/events/auth.ts', () => {
    const records = outboxRows()
      .map((row) => ({
        row,
        record: JSON.parse(row.payload) as { id: string; name: string; company_id: number; body: AuthEvent },
      }))
      .filter(({ record }) => record.body.type === 'auth');
    expect(records.length).toBeGreaterThan(50);
    const kinds = new Set<string>();
    for (const { row, record } of records) {
      expect(
        validateEvent(record.body),
        `${JSON.stringify(record.body)}: ${JSON.stringify(validateEvent.errors)}`,
      ).toBe(true);
      expect(record.name).toBe(`auth.${record.body.event}`);
      expect(record.id).toBe(record.body.id);
      expect(row.message_id).toBe(record.body.id);
      expect(row.stream).toBe('gateway.events');
      expect(row.key).toBe(String(record.company_id));
      expect(record.company_id).toBe(record.body.object.company_id);
      kinds.add(`${record.body.event}:${record.body.object.state}`);
    }
    expect([...kinds].sort()).toEqual([
      'create:enabled',
      'create:unconfirmed',
      'delete:disabled',
      'update:disabled',
      'update:enabled',
    ]);
    expect(new Set(records.map(({ record }) => record.body.id)).size).toBe(records.length);
  });

  it('the schema refuses an object with a credential or an unknown state', () => {
    const [sample] = authEvents();
    expect(validateEvent({ ...sample, object: { ...sample!.object, credentials: { token: 'x' } } })).toBe(false);
    expect(validateEvent({ ...sample, object: { ...sample!.object, settings: { token: 'x' } } })).toBe(false);
    expect(validateEvent({ ...sample, object: { ...sample!.object, state: 'deleted' } })).toBe(false);
    expect(validateEvent({ ...sample, type: 'channel' })).toBe(false);
  });
});
