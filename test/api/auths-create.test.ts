// Black-box HTTP tests of creating v2 auths (contract section 4 "v2 Auths", section 6 events;
// docs/design.md section 9 for the paths) against a real gateway on a temp SQLite file: every create
// variant with its initial state, settings and create event, the fields read and refused, one live
// auth per provider per company, and no secret this file sends in the log or an event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failingFields, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import {
  allSecrets,
  authHelpers,
  authPath,
  authsPath,
  expectAuthAnswer,
  secret,
  startAuthsGateway,
  type Body,
} from './auth-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { create, created, eventsOf, refused } = authHelpers(() => gw);

beforeAll(async () => {
  ({ gw, close } = await startAuthsGateway());
});
afterAll(() => close?.());

const DAY = 24 * 60 * 60 * 1000;
const isoAgo = (ms: number) => new Date(Date.now() - ms).toISOString();

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
// Secrets (the other auths-*.test.ts files check theirs when they close)

describe('credentials are never shown, evented or logged', () => {
  it('no secret sent anywhere in this file reached the log or an event', () => {
    expect(allSecrets.length).toBeGreaterThan(10);
    const log = gw.logText();
    const events = JSON.stringify(gw.gateway.store.db.prepare('SELECT payload FROM outbox').all());
    expect(allSecrets.filter((s) => log.includes(s) || events.includes(s))).toEqual([]);
  });
});
