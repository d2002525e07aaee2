// Black-box HTTP tests of the v1 channel endpoints (contract section 4 "v1 Channels",
// "Create channel variants", section 8 limits) against a real gateway on a temp SQLite file.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectErrorShape,
  failingFields,
  startTestGateway,
  type TestGateway,
  type TestResponse,
} from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';

type Body = Record<string, unknown>;

let gw: TestGateway;
/** Every distinctive secret sent by this file: none may ever reach the log. */
const allSecrets: string[] = [];

beforeAll(async () => {
  gw = await startTestGateway();
});

afterAll(async () => {
  await gw?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers

const DAY = 24 * 60 * 60 * 1000;
const isoAgo = (ms: number) => new Date(Date.now() - ms).toISOString();
const unixAgo = (ms: number) => Math.floor((Date.now() - ms) / 1000);

function secret(label = 'secret'): string {
  const value = `S3CRET-${label}-${randomUUID()}`;
  allSecrets.push(value);
  return value;
}

const channelsPath = (companyId: number | string) => `/p1/companies/${companyId}/channels`;
const channelPath = (companyId: number | string, id: number | string) => `${channelsPath(companyId)}/${id}`;

function createChannel(companyId: number, body: Body, token?: string): Promise<TestResponse> {
  return gw.request('POST', channelsPath(companyId), { json: body, ...(token === undefined ? {} : { token }) });
}

/** Creates a channel that must be accepted and answers its id. */
async function createdId(companyId: number, body: Body): Promise<number> {
  const res = await createChannel(companyId, body);
  expectCreated(res);
  return res.body.data.external_id as number;
}

function expectCreated(res: TestResponse): void {
  expect(res.status, res.text).toBe(201);
  expect(res.body).toEqual({ status: 'created', data: { external_id: expect.any(Number) } });
  expect(Number.isInteger(res.body.data.external_id)).toBe(true);
}

async function list(companyId: number, query = ''): Promise<TestResponse> {
  return gw.request('GET', `${channelsPath(companyId)}${query}`);
}

async function listItems(companyId: number): Promise<{ external_id: number; provider: string }[]> {
  const res = await list(companyId, '?per=100');
  expect(res.status, res.text).toBe(200);
  return res.body.data.channels;
}

interface StoredChannel {
  id: number;
  provider: string;
  state: string;
  settings: string;
  credentials: string;
  deleted_at: number | null;
}

function storedChannels(companyId: number): StoredChannel[] {
  return gw.gateway.store.db
    .prepare(
      'SELECT id, provider, state, settings, credentials, deleted_at FROM channels WHERE company_id = ? ORDER BY id',
    )
    .all(companyId) as StoredChannel[];
}

function storedChannel(id: number): StoredChannel {
  return gw.gateway.store.db
    .prepare('SELECT id, provider, state, settings, credentials, deleted_at FROM channels WHERE id = ?')
    .get(id) as StoredChannel;
}

/** A 422 naming exactly these fields (one entry per field), with nothing stored for the company. */
async function expectRejected(companyId: number, res: TestResponse, fields: string[]): Promise<void> {
  expect(res.status, res.text).toBe(422);
  expect(failingFields(res).sort()).toEqual([...fields].sort());
  expect(storedChannels(companyId)).toEqual([]);
  expect(await listItems(companyId)).toEqual([]);
}

function expectNotFound(res: TestResponse): void {
  expectErrorShape(res, 404, 'not_found');
  expect(res.body.errors).toHaveLength(1);
}

// ---------------------------------------------------------------------------------------------
// Create: every variant accepted

const TOKEN_PROVIDERS = ['social_b', 'social_a', 'social_a_direct', 'chat_b', 'chat_c'] as const;

const validVariants: [string, () => Body][] = [
  ['chat_d QR', () => ({ provider: 'chat_d' })],
  ['chat_d QR with sync_messages_from (ISO)', () => ({ provider: 'chat_d', sync_messages_from: isoAgo(DAY) })],
  ['chat_a QR', () => ({ provider: 'chat_a' })],
  [
    'chat_a QR with sync_messages_from (unix seconds)',
    () => ({ provider: 'chat_a', sync_messages_from: unixAgo(DAY) }),
  ],
  ['chat_a digital code', () => ({ provider: 'chat_a', phone: '79161234567' })],
  [
    'chat_a digital code with sync_messages_from',
    () => ({ provider: 'chat_a', phone: '79161234567', sync_messages_from: isoAgo(DAY) }),
  ],
  ['chat_a_business by token (cloud)', () => ({ provider: 'chat_a_business', hosting_type: 'cloud', token: secret() })],
  [
    'chat_a_business by token (onpremise, regular)',
    () => ({ provider: 'chat_a_business', hosting_type: 'onpremise', token: secret(), subtype: 'regular' }),
  ],
  [
    'chat_a_business by token (unlim)',
    () => ({ provider: 'chat_a_business', hosting_type: 'cloud', token: secret(), subtype: 'unlim' }),
  ],
  [
    'chat_a_business by token (no_write_first)',
    () => ({ provider: 'chat_a_business', hosting_type: 'cloud', token: secret(), subtype: 'no_write_first' }),
  ],
  [
    'chat_a_business by vendor_channel_id',
    () => ({ provider: 'chat_a_business', hosting_type: 'onpremise', vendor_channel_id: 'vc-1' }),
  ],
  [
    'chat_a_business by vendor_channel_id with all optionals',
    () => ({
      provider: 'chat_a_business',
      hosting_type: 'cloud',
      vendor_channel_id: 'vc-2',
      vendor_client_id: 'client-7',
      account_name: 'Main account',
      subtype: 'unlim',
    }),
  ],
  ['market_a', () => ({ provider: 'market_a', login: secret('login'), password: secret('password') })],
  ...TOKEN_PROVIDERS.map((provider): [string, () => Body] => [
    `${provider} by token`,
    () => ({ provider, token: secret() }),
  ]),
  [
    'social_c_business',
    () => ({
      provider: 'social_c_business',
      token: secret(),
      phone: '79161234567',
      data: { id: '1029', name: secret('data') },
    }),
  ],
  ['chat_b_personal by QR', () => ({ provider: 'chat_b_personal', via_qr_code: true })],
  [
    'chat_b_personal by QR with sync_messages_from',
    () => ({ provider: 'chat_b_personal', via_qr_code: true, sync_messages_from: isoAgo(DAY) }),
  ],
  ['chat_b_personal by phone', () => ({ provider: 'chat_b_personal', phone: '79161234567' })],
  [
    'chat_b_personal by phone with sync_messages_from',
    () => ({ provider: 'chat_b_personal', phone: '79161234567', sync_messages_from: unixAgo(DAY) }),
  ],
  [
    'social_c (login and password)',
    () => ({ provider: 'social_c', login: secret('login'), password: secret('password') }),
  ],
];

describe('POST /p1/companies/:companyId/channels — every variant is accepted (JSON)', () => {
  it.each(validVariants)('%s', async (_name, make) => {
    const company = await newCompany(gw);
    const body = make();
    const res = await createChannel(company, body);
    expectCreated(res);
    const id = res.body.data.external_id as number;
    expect(await listItems(company)).toEqual([{ external_id: id, provider: body.provider }]);
    const stored = storedChannels(company);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id, provider: body.provider, deleted_at: null });
  });
});

describe('POST /p1/companies/:companyId/channels — form bodies', () => {
  it.each([
    ['chat_a digital code', (_s: string) => `provider=chat_a&phone=79161234567`, 'chat_a'],
    [
      'chat_d with unix sync_messages_from',
      (_s: string) => `provider=chat_d&sync_messages_from=${unixAgo(DAY)}`,
      'chat_d',
    ],
    [
      'chat_a_business by token',
      (s: string) => `provider=chat_a_business&hosting_type=cloud&token=${s}&subtype=unlim`,
      'chat_a_business',
    ],
    [
      'chat_a_business by vendor_channel_id',
      (_s: string) => `provider=chat_a_business&hosting_type=onpremise&vendor_channel_id=vc-9&account_name=Main`,
      'chat_a_business',
    ],
    ['market_a', (s: string) => `provider=market_a&login=client-${s}&password=${s}`, 'market_a'],
    ['social_b', (s: string) => `provider=social_b&token=${s}`, 'social_b'],
    [
      'chat_b_personal by QR (via_qr_code=true is coerced)',
      (_s: string) => 'provider=chat_b_personal&via_qr_code=true',
      'chat_b_personal',
    ],
    ['chat_b_personal by phone', (_s: string) => 'provider=chat_b_personal&phone=79161234567', 'chat_b_personal'],
  ])('%s', async (_name, make, provider) => {
    const company = await newCompany(gw);
    const res = await gw.request('POST', channelsPath(company), { form: make(secret()) });
    expectCreated(res);
    expect(await listItems(company)).toEqual([{ external_id: res.body.data.external_id, provider }]);
  });

  it('social_c_business takes data as a bracket-nested hash (data[name]=x)', async () => {
    const company = await newCompany(gw);
    const token = secret();
    const name = secret('data');
    const form = new URLSearchParams({
      provider: 'social_c_business',
      token,
      phone: '79161234567',
      'data[id]': '1029',
      'data[name]': name,
    });
    const res = await gw.request('POST', channelsPath(company), { form });
    expectCreated(res);
    const stored = storedChannels(company);
    expect(stored).toHaveLength(1);
    expect(JSON.parse(stored[0]!.credentials)).toMatchObject({ token, data: { id: '1029', name } });
  });

  it.each([
    ['data as plain text is not a hash', 'provider=social_c_business&token=t&phone=79161234567&data=profile', ['data']],
    ['via_qr_code=false', 'provider=chat_b_personal&via_qr_code=false', ['via_qr_code']],
    ['phone with a plus', 'provider=chat_a&phone=%2B79161234567', ['phone']],
    ['unknown hosting_type', 'provider=chat_a_business&hosting_type=hybrid&token=t', ['hosting_type']],
    ['missing token', 'provider=chat_c', ['token']],
    ['old sync_messages_from', `provider=chat_a&sync_messages_from=${unixAgo(40 * DAY)}`, ['sync_messages_from']],
  ])('rejects %s', async (_name, form, fields) => {
    const company = await newCompany(gw);
    const res = await gw.request('POST', channelsPath(company), { form });
    await expectRejected(company, res, fields);
  });
});

// ---------------------------------------------------------------------------------------------
// Create: validation

describe('POST /p1/companies/:companyId/channels — missing required fields', () => {
  it.each<[string, Body, string[]]>([
    ['no provider', {}, ['provider']],
    ['no provider but other fields', { token: 'abc' }, ['provider']],
    ['chat_a_business with nothing', { provider: 'chat_a_business' }, ['hosting_type', 'vendor_channel_id']],
    ['chat_a_business token without hosting_type', { provider: 'chat_a_business', token: 'abc' }, ['hosting_type']],
    [
      'chat_a_business vendor_channel_id without hosting_type',
      { provider: 'chat_a_business', vendor_channel_id: 'vc' },
      ['hosting_type'],
    ],
    [
      'chat_a_business hosting_type without token or vendor_channel_id',
      { provider: 'chat_a_business', hosting_type: 'cloud' },
      ['vendor_channel_id'],
    ],
    [
      'chat_a_business vendor_client_id alone does not replace vendor_channel_id',
      { provider: 'chat_a_business', hosting_type: 'cloud', vendor_client_id: 'c', account_name: 'n' },
      ['vendor_channel_id'],
    ],
    ['chat_a_business empty token', { provider: 'chat_a_business', hosting_type: 'cloud', token: '' }, ['token']],
    ['market_a with nothing', { provider: 'market_a' }, ['login', 'password']],
    ['market_a without password', { provider: 'market_a', login: 'l' }, ['password']],
    ['market_a without login', { provider: 'market_a', password: 'p' }, ['login']],
    ['market_a empty strings', { provider: 'market_a', login: '', password: '' }, ['login', 'password']],
    ...TOKEN_PROVIDERS.map((provider): [string, Body, string[]] => [
      `${provider} without token`,
      { provider },
      ['token'],
    ]),
    ...TOKEN_PROVIDERS.map((provider): [string, Body, string[]] => [
      `${provider} with empty token`,
      { provider, token: '' },
      ['token'],
    ]),
    ['social_c_business with nothing', { provider: 'social_c_business' }, ['data', 'phone', 'token']],
    ['social_c_business without data', { provider: 'social_c_business', token: 't', phone: '79161234567' }, ['data']],
    ['social_c_business without phone', { provider: 'social_c_business', token: 't', data: { id: '1' } }, ['phone']],
    [
      'social_c_business without token',
      { provider: 'social_c_business', phone: '79161234567', data: { id: '1' } },
      ['token'],
    ],
    ['chat_b_personal with neither via_qr_code nor phone', { provider: 'chat_b_personal' }, ['via_qr_code']],
    ['social_c with nothing', { provider: 'social_c' }, ['login', 'password']],
  ])('%s', async (_name, body, fields) => {
    const company = await newCompany(gw);
    await expectRejected(company, await createChannel(company, body), fields);
  });
});

describe('POST /p1/companies/:companyId/channels — enumerations', () => {
  it.each<[string, Body, string[]]>([
    ['unknown provider', { provider: 'telegram', token: 't' }, ['provider']],
    ['provider in upper case', { provider: 'CHAT_A' }, ['provider']],
    ['empty provider', { provider: '' }, ['provider']],
    ['provider not a string', { provider: 7 }, ['provider']],
    ['unknown hosting_type', { provider: 'chat_a_business', hosting_type: 'hybrid', token: 't' }, ['hosting_type']],
    [
      'hosting_type in upper case',
      { provider: 'chat_a_business', hosting_type: 'CLOUD', token: 't' },
      ['hosting_type'],
    ],
    ['empty hosting_type', { provider: 'chat_a_business', hosting_type: '', vendor_channel_id: 'v' }, ['hosting_type']],
    [
      'unknown subtype',
      { provider: 'chat_a_business', hosting_type: 'cloud', token: 't', subtype: 'premium' },
      ['subtype'],
    ],
    [
      'both enums wrong',
      { provider: 'chat_a_business', hosting_type: 'x', token: 't', subtype: 'y' },
      ['hosting_type', 'subtype'],
    ],
  ])('%s', async (_name, body, fields) => {
    const company = await newCompany(gw);
    await expectRejected(company, await createChannel(company, body), fields);
  });
});

describe('POST /p1/companies/:companyId/channels — JSON types are strict', () => {
  it.each<[string, Body, string[]]>([
    ['via_qr_code "true" (string)', { provider: 'chat_b_personal', via_qr_code: 'true' }, ['via_qr_code']],
    ['via_qr_code false', { provider: 'chat_b_personal', via_qr_code: false }, ['via_qr_code']],
    ['via_qr_code 1', { provider: 'chat_b_personal', via_qr_code: 1 }, ['via_qr_code']],
    ['token as a number', { provider: 'social_b', token: 123456 }, ['token']],
    ['phone as a number', { provider: 'chat_a', phone: 79161234567 }, ['phone']],
    ['login and password as numbers', { provider: 'market_a', login: 1, password: 2 }, ['login', 'password']],
    [
      'hosting_type as an array',
      { provider: 'chat_a_business', hosting_type: ['cloud'], token: 't' },
      ['hosting_type'],
    ],
    [
      'data as a string',
      { provider: 'social_c_business', token: 't', phone: '79161234567', data: 'profile' },
      ['data'],
    ],
    [
      'data as an array',
      { provider: 'social_c_business', token: 't', phone: '79161234567', data: [{ id: 1 }] },
      ['data'],
    ],
    ['data null', { provider: 'social_c_business', token: 't', phone: '79161234567', data: null }, ['data']],
  ])('%s', async (_name, body, fields) => {
    const company = await newCompany(gw);
    await expectRejected(company, await createChannel(company, body), fields);
  });
});

describe('POST /p1/companies/:companyId/channels — chat_a phone rules (digits only, country code first, no plus)', () => {
  it.each(['1234567', '123456789012345', '79161234567', '14155552671'])('accepts %s', async (phone) => {
    const company = await newCompany(gw);
    await createdId(company, { provider: 'chat_a', phone });
  });

  it.each([
    '+79161234567',
    '123456',
    '1234567890123456',
    '07916123456',
    '7916-123-45-67',
    '7916 1234567',
    '(7916)1234567',
    '7916123456a',
    '',
  ])('rejects %j', async (phone) => {
    const company = await newCompany(gw);
    await expectRejected(company, await createChannel(company, { provider: 'chat_a', phone }), ['phone']);
  });

  it('chat_b_personal rejects a phone that is not a phone number', async () => {
    const company = await newCompany(gw);
    await expectRejected(company, await createChannel(company, { provider: 'chat_b_personal', phone: 'call me' }), [
      'phone',
    ]);
  });
});

describe('sync_messages_from (ISO 8601 or unix seconds, not older than one month)', () => {
  const accepted: [string, () => unknown][] = [
    ['ISO 8601 a day ago', () => isoAgo(DAY)],
    ['ISO 8601 with an offset', () => new Date(Date.now() - DAY).toISOString().replace('Z', '+00:00')],
    ['ISO 8601 date only (today)', () => new Date().toISOString().slice(0, 10)],
    ['now', () => new Date().toISOString()],
    ['unix seconds as a number', () => unixAgo(DAY)],
    ['unix seconds as a string', () => String(unixAgo(DAY))],
    ['27 days ago', () => isoAgo(27 * DAY)],
  ];
  const rejected: [string, () => unknown][] = [
    ['ISO 8601 forty days ago', () => isoAgo(40 * DAY)],
    ['unix seconds forty days ago', () => unixAgo(40 * DAY)],
    ['a year ago', () => isoAgo(365 * DAY)],
    ['2020-01-01', () => '2020-01-01'],
    ['unix epoch 0', () => 0],
    ['garbage text', () => 'yesterday'],
    ['another garbage', () => 'not-a-date'],
    ['empty string', () => ''],
    ['negative number', () => -5],
    ['fractional number', () => 1.5],
    ['boolean', () => true],
    ['object', () => ({ at: isoAgo(DAY) })],
  ];
  const variants: [string, Body][] = [
    ['chat_d', { provider: 'chat_d' }],
    ['chat_a QR', { provider: 'chat_a' }],
    ['chat_a code', { provider: 'chat_a', phone: '79161234567' }],
    ['chat_b_personal QR', { provider: 'chat_b_personal', via_qr_code: true }],
    ['chat_b_personal phone', { provider: 'chat_b_personal', phone: '79161234567' }],
  ];

  describe.each(variants)('%s', (_variant, base) => {
    it.each(accepted)('accepts %s', async (_name, value) => {
      const company = await newCompany(gw);
      await createdId(company, { ...base, sync_messages_from: value() });
    });

    it.each(rejected)('rejects %s', async (_name, value) => {
      const company = await newCompany(gw);
      await expectRejected(company, await createChannel(company, { ...base, sync_messages_from: value() }), [
        'sync_messages_from',
      ]);
    });
  });

  it('names only sync_messages_from when it is too old and everything else is valid', async () => {
    const company = await newCompany(gw);
    const res = await createChannel(company, {
      provider: 'chat_a',
      phone: '79161234567',
      sync_messages_from: isoAgo(40 * DAY),
    });
    const errors = expectErrorShape(res, 422, 'validation_failed');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.source).toEqual({ pointer: '/sync_messages_from' });
    expect(storedChannels(company)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// One channel per provider per company

describe('409 conflict for a second live channel of the same provider', () => {
  it.each<[string, Body, Body]>([
    ['chat_a QR then chat_a QR', { provider: 'chat_a' }, { provider: 'chat_a' }],
    ['chat_a QR then chat_a digital code', { provider: 'chat_a' }, { provider: 'chat_a', phone: '79161234567' }],
    ['social_b twice', { provider: 'social_b', token: 'one' }, { provider: 'social_b', token: 'two' }],
    [
      'chat_a_business by token then by vendor_channel_id',
      { provider: 'chat_a_business', hosting_type: 'cloud', token: 't' },
      { provider: 'chat_a_business', hosting_type: 'onpremise', vendor_channel_id: 'vc' },
    ],
    [
      'chat_b_personal QR then phone',
      { provider: 'chat_b_personal', via_qr_code: true },
      { provider: 'chat_b_personal', phone: '79161234567' },
    ],
    [
      'market_a twice',
      { provider: 'market_a', login: 'a', password: 'b' },
      { provider: 'market_a', login: 'c', password: 'd' },
    ],
  ])('%s', async (_name, first, second) => {
    const company = await newCompany(gw);
    const id = await createdId(company, first);
    const before = storedChannels(company);

    const res = await createChannel(company, second);
    expectErrorShape(res, 409, 'conflict');
    expect(res.body.errors).toHaveLength(1);
    expect(storedChannels(company)).toEqual(before);
    expect(await listItems(company)).toEqual([{ external_id: id, provider: first.provider }]);
  });

  it('allows the same provider in another company and other providers in the same company', async () => {
    const a = await newCompany(gw);
    const b = await newCompany(gw);
    const a1 = await createdId(a, { provider: 'chat_c', token: 't' });
    const b1 = await createdId(b, { provider: 'chat_c', token: 't' });
    const a2 = await createdId(a, { provider: 'chat_b', token: 't' });
    expect(await listItems(a)).toEqual([
      { external_id: a1, provider: 'chat_c' },
      { external_id: a2, provider: 'chat_b' },
    ]);
    expect(await listItems(b)).toEqual([{ external_id: b1, provider: 'chat_c' }]);
  });

  it('a deleted channel frees the slot', async () => {
    const company = await newCompany(gw);
    const first = await createdId(company, { provider: 'chat_d' });
    expectErrorShape(await createChannel(company, { provider: 'chat_d' }), 409, 'conflict');

    const del = await gw.request('DELETE', channelPath(company, first));
    expect(del.status, del.text).toBe(200);

    const second = await createdId(company, { provider: 'chat_d' });
    expect(second).not.toBe(first);
    expect(await listItems(company)).toEqual([{ external_id: second, provider: 'chat_d' }]);
    // And the new one occupies the slot again.
    expectErrorShape(await createChannel(company, { provider: 'chat_d' }), 409, 'conflict');
    expect(storedChannels(company).map((c) => c.id)).toEqual([first, second]);
  });
});

// ---------------------------------------------------------------------------------------------
// List and pagination

describe('GET /p1/companies/:companyId/channels', () => {
  let company: number;
  let ids: number[];
  const providers = ['social_b', 'chat_b', 'chat_c'];

  beforeAll(async () => {
    company = await newCompany(gw);
    ids = [];
    for (const provider of providers) ids.push(await createdId(company, { provider, token: 't' }));
    // A deleted channel is never listed.
    const gone = await createdId(company, { provider: 'social_a', token: 't' });
    expect((await gw.request('DELETE', channelPath(company, gone))).status).toBe(200);
  });

  const item = (i: number) => ({ external_id: ids[i], provider: providers[i] });

  it('answers an empty list for a company without channels', async () => {
    const empty = await newCompany(gw);
    const res = await list(empty);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', data: { channels: [], next_page: '' } });
  });

  it('lists all live channels ascending by id by default, next_page empty on the last page', async () => {
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const res = await list(company);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', data: { channels: [item(0), item(1), item(2)], next_page: '' } });
  });

  it('sort_direction=desc lists newest first', async () => {
    const res = await list(company, '?sort_direction=desc');
    expect(res.body).toEqual({ status: 'ok', data: { channels: [item(2), item(1), item(0)], next_page: '' } });
  });

  it.each([
    ['asc', [0, 1, 2]],
    ['desc', [2, 1, 0]],
  ] as const)('walks with per=1 %s', async (direction, order) => {
    let from: string | undefined;
    const seen: unknown[] = [];
    const tokens: string[] = [];
    for (let page = 0; page < order.length; page += 1) {
      const query = `?per=1&sort_direction=${direction}${from === undefined ? '' : `&from=${encodeURIComponent(from)}`}`;
      const res = await list(company, query);
      expect(res.status, res.text).toBe(200);
      expect(res.body.status).toBe('ok');
      expect(res.body.data.channels).toEqual([item(order[page]!)]);
      expect(typeof res.body.data.next_page).toBe('string');
      seen.push(...res.body.data.channels);
      if (page < order.length - 1) {
        expect(res.body.data.next_page).not.toBe('');
        tokens.push(res.body.data.next_page);
      } else {
        expect(res.body.data.next_page).toBe('');
      }
      from = res.body.data.next_page;
    }
    expect(seen).toEqual(order.map(item));
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('walks with per=2 ascending', async () => {
    const first = await list(company, '?per=2');
    expect(first.body.data.channels).toEqual([item(0), item(1)]);
    expect(first.body.data.next_page).not.toBe('');
    const second = await list(company, `?per=2&from=${encodeURIComponent(first.body.data.next_page)}`);
    expect(second.body).toEqual({ status: 'ok', data: { channels: [item(2)], next_page: '' } });
  });

  it('per equal to the row count ends on the first page; per=100 is allowed', async () => {
    expect((await list(company, '?per=3')).body).toEqual({
      status: 'ok',
      data: { channels: [item(0), item(1), item(2)], next_page: '' },
    });
    expect((await list(company, '?per=100')).body.data.channels).toHaveLength(3);
  });

  it.each([
    ['empty from', '?per=1&from='],
    ['garbage from', '?per=1&from=not-a-cursor'],
    ['255-character from', `?per=1&from=${'x'.repeat(255)}`],
  ])('%s returns the first page', async (_name, query) => {
    const res = await list(company, query);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.channels).toEqual([item(0)]);
    expect(res.body.data.next_page).not.toBe('');
  });

  it.each([
    ['per=0', '?per=0', ['per']],
    ['per=101', '?per=101', ['per']],
    ['per=abc', '?per=abc', ['per']],
    ['per=-1', '?per=-1', ['per']],
    ['per=1.5', '?per=1.5', ['per']],
    ['sort_direction=up', '?sort_direction=up', ['sort_direction']],
    ['from longer than 255 characters', `?from=${'x'.repeat(256)}`, ['from']],
    ['per and sort_direction both wrong', '?per=0&sort_direction=sideways', ['per', 'sort_direction']],
  ])('%s → 422', async (_name, query, fields) => {
    const res = await list(company, query);
    expect(failingFields(res).sort()).toEqual([...fields].sort());
  });
});

// ---------------------------------------------------------------------------------------------
// PUT

describe('PUT /p1/companies/:companyId/channels/:id', () => {
  const tokenProviders: [string, Body][] = [
    ...TOKEN_PROVIDERS.map((provider): [string, Body] => [provider, { provider, token: 'original' }]),
    [
      'social_c_business',
      { provider: 'social_c_business', token: 'original', phone: '79161234567', data: { id: '1' } },
    ],
    ['chat_a_business', { provider: 'chat_a_business', hosting_type: 'cloud', token: 'original' }],
  ];
  const loginProviders: [string, Body][] = [
    ['market_a', { provider: 'market_a', login: 'original', password: 'original' }],
    ['social_c', { provider: 'social_c', login: 'original', password: 'original' }],
  ];
  const sessionProviders: [string, Body][] = [
    ['chat_a', { provider: 'chat_a' }],
    ['chat_d', { provider: 'chat_d' }],
    ['chat_b_personal', { provider: 'chat_b_personal', via_qr_code: true }],
  ];

  async function put(company: number, id: number, body: Body | string): Promise<TestResponse> {
    return typeof body === 'string'
      ? gw.request('PUT', channelPath(company, id), { form: body })
      : gw.request('PUT', channelPath(company, id), { json: body });
  }

  function expectUpdated(res: TestResponse, id: number): void {
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: 'updated', data: { external_id: id } });
  }

  describe.each(tokenProviders)('%s takes token', (_provider, createBody) => {
    it('updates the token (JSON)', async () => {
      const company = await newCompany(gw);
      const id = await createdId(company, createBody);
      const token = secret();
      expectUpdated(await put(company, id, { token }), id);
      expect(JSON.parse(storedChannel(id).credentials).token).toBe(token);
    });

    it('updates the token (form)', async () => {
      const company = await newCompany(gw);
      const id = await createdId(company, createBody);
      const token = secret();
      expectUpdated(await put(company, id, `token=${token}`), id);
      expect(JSON.parse(storedChannel(id).credentials).token).toBe(token);
    });

    it.each<[string, Body]>([
      ['missing token', {}],
      ['empty token', { token: '' }],
      ['token as a number', { token: 42 }],
    ])('rejects %s', async (_name, body) => {
      const company = await newCompany(gw);
      const id = await createdId(company, createBody);
      const before = storedChannel(id);
      const res = await put(company, id, body);
      expect(failingFields(res)).toEqual(['token']);
      expect(storedChannel(id)).toEqual(before);
    });
  });

  describe.each(loginProviders)('%s takes login and password', (_provider, createBody) => {
    it('updates login and password', async () => {
      const company = await newCompany(gw);
      const id = await createdId(company, createBody);
      const login = secret('login');
      const password = secret('password');
      expectUpdated(await put(company, id, { login, password }), id);
      expect(JSON.parse(storedChannel(id).credentials)).toMatchObject({ login, password });
    });

    it('updates login and password (form)', async () => {
      const company = await newCompany(gw);
      const id = await createdId(company, createBody);
      expectUpdated(await put(company, id, `login=l2&password=p2`), id);
    });

    it.each<[string, Body, string[]]>([
      ['nothing', {}, ['login', 'password']],
      ['only login', { login: 'l' }, ['password']],
      ['only password', { password: 'p' }, ['login']],
      ['a token instead', { token: 't' }, ['login', 'password']],
    ])('rejects %s', async (_name, body, fields) => {
      const company = await newCompany(gw);
      const id = await createdId(company, createBody);
      const before = storedChannel(id);
      const res = await put(company, id, body);
      expect(failingFields(res).sort()).toEqual(fields);
      expect(storedChannel(id)).toEqual(before);
    });
  });

  describe.each(sessionProviders)('%s takes sync_messages_from', (_provider, createBody) => {
    it.each<[string, () => unknown]>([
      ['ISO 8601', () => isoAgo(DAY)],
      ['unix seconds', () => unixAgo(2 * DAY)],
    ])('updates with %s', async (_name, value) => {
      const company = await newCompany(gw);
      const id = await createdId(company, createBody);
      expectUpdated(await put(company, id, { sync_messages_from: value() }), id);
    });

    it.each<[string, () => unknown]>([
      ['older than one month', () => isoAgo(40 * DAY)],
      ['garbage', () => 'last tuesday'],
    ])('rejects %s', async (_name, value) => {
      const company = await newCompany(gw);
      const id = await createdId(company, createBody);
      const before = storedChannel(id);
      const res = await put(company, id, { sync_messages_from: value() });
      expect(failingFields(res)).toEqual(['sync_messages_from']);
      expect(storedChannel(id)).toEqual(before);
    });
  });

  it('does not change the channel list', async () => {
    const company = await newCompany(gw);
    const id = await createdId(company, { provider: 'chat_b', token: 'a' });
    expectUpdated(await put(company, id, { token: 'b' }), id);
    expect(await listItems(company)).toEqual([{ external_id: id, provider: 'chat_b' }]);
  });
});

// ---------------------------------------------------------------------------------------------
// DELETE

describe('DELETE /p1/companies/:companyId/channels/:id', () => {
  it('answers deleted, leaves the row disabled with deleted_at set, and hides the channel', async () => {
    const company = await newCompany(gw);
    const keep = await createdId(company, { provider: 'chat_b', token: 't' });
    const id = await createdId(company, { provider: 'chat_a' });
    const before = Date.now();

    const res = await gw.request('DELETE', channelPath(company, id));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: 'deleted' });

    const row = gw.gateway.store.db.prepare('SELECT state, deleted_at FROM channels WHERE id = ?').get(id) as {
      state: string;
      deleted_at: number | null;
    };
    expect(row.state).toBe('disabled');
    expect(row.deleted_at).not.toBeNull();
    expect(row.deleted_at!).toBeGreaterThanOrEqual(before - 1000);
    expect(await listItems(company)).toEqual([{ external_id: keep, provider: 'chat_b' }]);
    // The other channel is untouched.
    expect(storedChannel(keep).deleted_at).toBeNull();
  });

  it('a deleted channel is gone for DELETE, PUT and the actions', async () => {
    const company = await newCompany(gw);
    const id = await createdId(company, { provider: 'social_b', token: 't' });
    expect((await gw.request('DELETE', channelPath(company, id))).status).toBe(200);

    expectNotFound(await gw.request('DELETE', channelPath(company, id)));
    expectNotFound(await gw.request('PUT', channelPath(company, id), { json: { token: 'x' } }));
    expectNotFound(await gw.request('POST', `${channelPath(company, id)}/request_code`, { json: {} }));
    expectNotFound(
      await gw.request('GET', `${channelPath(company, id)}/enable_page_instagram?page_id=1&sync_period=day`),
    );
    expect(storedChannel(id)).toMatchObject({ state: 'disabled' });
  });

  it('deletes a channel regardless of its provider', async () => {
    const company = await newCompany(gw);
    const ids = [
      await createdId(company, { provider: 'market_a', login: 'l', password: 'p' }),
      await createdId(company, { provider: 'chat_b_personal', phone: '79161234567' }),
      await createdId(company, { provider: 'social_c_business', token: 't', phone: '1', data: { id: 'x' } }),
    ];
    for (const id of ids) {
      const res = await gw.request('DELETE', channelPath(company, id));
      expect(res.body).toEqual({ status: 'deleted' });
    }
    expect(await listItems(company)).toEqual([]);
    expect(storedChannels(company).map((c) => c.state)).toEqual(['disabled', 'disabled', 'disabled']);
  });
});

// ---------------------------------------------------------------------------------------------
// 404, 401, cross-account

describe('not found', () => {
  it.each(['999999', 'abc', '0', '-1', '1.5', '1e3'])('unknown or malformed company id %s', async (companyId) => {
    expectNotFound(await gw.request('GET', channelsPath(companyId)));
    expectNotFound(await gw.request('POST', channelsPath(companyId), { json: { provider: 'chat_a' } }));
    expectNotFound(await gw.request('PUT', channelPath(companyId, 1), { json: { token: 't' } }));
    expectNotFound(await gw.request('DELETE', channelPath(companyId, 1)));
  });

  it.each(['999999', 'abc', '0', '-1', '1.5'])('unknown or malformed channel id %s', async (channelId) => {
    const company = await newCompany(gw);
    await createdId(company, { provider: 'chat_b', token: 't' });
    expectNotFound(await gw.request('PUT', channelPath(company, channelId), { json: { token: 't' } }));
    expectNotFound(await gw.request('DELETE', channelPath(company, channelId)));
    expectNotFound(await gw.request('POST', `${channelPath(company, channelId)}/confirm`, { json: {} }));
  });

  it('a channel of another company of the same account is not found', async () => {
    const a = await newCompany(gw);
    const b = await newCompany(gw);
    const id = await createdId(a, { provider: 'chat_b', token: 't' });
    expectNotFound(await gw.request('PUT', channelPath(b, id), { json: { token: 'x' } }));
    expectNotFound(await gw.request('DELETE', channelPath(b, id)));
    expectNotFound(await gw.request('POST', `${channelPath(b, id)}/request_code`, { json: {} }));
    expect(storedChannel(id)).toMatchObject({ state: 'enabled', deleted_at: null });
    expect(JSON.parse(storedChannel(id).credentials)).toEqual({ token: 't' });
  });
});

describe("another account's company is not found", () => {
  let otherToken: string;
  let company: number;
  let channel: number;

  beforeAll(async () => {
    otherToken = await gw.createAccount('stranger');
    company = await newCompany(gw);
    channel = await createdId(company, { provider: 'social_b', token: 'owner-token' });
  });

  it('list', async () => {
    expectNotFound(await gw.request('GET', channelsPath(company), { token: otherToken }));
  });

  it('create stores nothing', async () => {
    expectNotFound(await createChannel(company, { provider: 'chat_a' }, otherToken));
    expect(storedChannels(company).map((c) => c.id)).toEqual([channel]);
  });

  it('put changes nothing', async () => {
    const before = storedChannel(channel);
    expectNotFound(
      await gw.request('PUT', channelPath(company, channel), { json: { token: 'hijack' }, token: otherToken }),
    );
    expect(storedChannel(channel)).toEqual(before);
  });

  it('delete changes nothing', async () => {
    expectNotFound(await gw.request('DELETE', channelPath(company, channel), { token: otherToken }));
    expect(storedChannel(channel)).toMatchObject({ deleted_at: null });
    expect(await listItems(company)).toEqual([{ external_id: channel, provider: 'social_b' }]);
  });

  it('actions', async () => {
    expectNotFound(
      await gw.request('POST', `${channelPath(company, channel)}/request_code`, { json: {}, token: otherToken }),
    );
    expectNotFound(
      await gw.request('GET', `${channelPath(company, channel)}/enable_page_instagram`, { token: otherToken }),
    );
  });

  it("the channel id under the stranger's own company", async () => {
    const own = await newCompany(gw, {}, otherToken);
    expectNotFound(
      await gw.request('PUT', channelPath(own, channel), { json: { token: 'hijack' }, token: otherToken }),
    );
    expectNotFound(await gw.request('DELETE', channelPath(own, channel), { token: otherToken }));
    expect(storedChannel(channel)).toMatchObject({ deleted_at: null });
  });
});

describe('401 without a valid token', () => {
  let company: number;
  let channel: number;

  beforeAll(async () => {
    company = await newCompany(gw);
    channel = await createdId(company, { provider: 'chat_b', token: 't' });
  });

  const calls: [string, string, (c: number, id: number) => string, Body | undefined][] = [
    ['list', 'GET', (c) => channelsPath(c), undefined],
    ['create', 'POST', (c) => channelsPath(c), { provider: 'chat_c', token: 't' }],
    ['put', 'PUT', (c, id) => channelPath(c, id), { token: 'x' }],
    ['delete', 'DELETE', (c, id) => channelPath(c, id), undefined],
    ['request_code', 'POST', (c, id) => `${channelPath(c, id)}/request_code`, {}],
    ['confirm', 'POST', (c, id) => `${channelPath(c, id)}/confirm`, {}],
    ['conversations', 'POST', (c, id) => `${channelPath(c, id)}/conversations`, {}],
    ['enable_page_instagram (GET)', 'GET', (c, id) => `${channelPath(c, id)}/enable_page_instagram`, undefined],
  ];

  it.each(calls)('%s', async (_name, method, path, json) => {
    const before = storedChannels(company);
    for (const token of [null, 'not-a-real-token']) {
      const res = await gw.request(method, path(company, channel), { token, ...(json === undefined ? {} : { json }) });
      expectErrorShape(res, 401, 'unauthorized');
      expect(res.body.errors).toHaveLength(1);
    }
    expect(storedChannels(company)).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------------------
// Connector-dependent actions

describe('connector-dependent actions without a configured connector: 503, or 4xx for what no connector would do', () => {
  const actions: [string, string, string, RequestInitLike][] = [
    ['request_code', 'POST', 'request_code', { json: {} }],
    ['confirm', 'POST', 'confirm', { json: { confirmation_type: 'code', code: 12345 } }],
    ['conversations', 'POST', 'conversations', { json: { phone: '79161234567', message: 'Hello' } }],
    ['enable_page_instagram (GET)', 'GET', 'enable_page_instagram?page_id=123&sync_period=week', {}],
    ['enable_page_instagram (POST)', 'POST', 'enable_page_instagram', { form: 'page_id=123&sync_period=all' }],
  ];

  /** Per action and provider: the answer when no connector is configured (GATEWAY_CONNECTOR_URL unset). */
  const expected: Record<string, Record<string, [number, string]>> = {
    request_code: {
      chat_a: [503, 'service_unavailable'],
      chat_b_personal: [503, 'service_unavailable'],
      social_c_business: [422, 'wrong_provider'],
      social_c: [422, 'validation_failed'],
    },
    confirm: {
      chat_a: [422, 'wrong_provider'],
      chat_b_personal: [503, 'service_unavailable'],
      social_c_business: [422, 'wrong_provider'],
      social_c: [422, 'validation_failed'],
    },
    conversations: {
      chat_a: [409, 'conflict'],
      chat_b_personal: [422, 'wrong_provider'],
      social_c_business: [422, 'wrong_provider'],
      social_c: [422, 'wrong_provider'],
    },
    'enable_page_instagram (GET)': {
      chat_a: [422, 'wrong_provider'],
      chat_b_personal: [422, 'wrong_provider'],
      social_c_business: [503, 'service_unavailable'],
      social_c: [503, 'service_unavailable'],
    },
    'enable_page_instagram (POST)': {
      chat_a: [422, 'wrong_provider'],
      chat_b_personal: [422, 'wrong_provider'],
      social_c_business: [503, 'service_unavailable'],
      social_c: [503, 'service_unavailable'],
    },
  };

  describe.each(actions)('%s', (name, method, suffix, options) => {
    it.each<[string, Body]>([
      ['chat_a', { provider: 'chat_a' }],
      ['chat_b_personal', { provider: 'chat_b_personal', via_qr_code: true }],
      ['social_c_business', { provider: 'social_c_business', token: 't', phone: '79161234567', data: { id: '1' } }],
      ['social_c', { provider: 'social_c', login: 'l', password: 'p' }],
    ])('for an existing %s channel', async (provider, body) => {
      const company = await newCompany(gw);
      const id = await createdId(company, body);
      const before = storedChannels(company);
      const res = await gw.request(method, `${channelPath(company, id)}/${suffix}`, options);
      const [status, code] = expected[name]![provider]!;
      expectErrorShape(res, status, code);
      if (code !== 'validation_failed') expect(res.body.errors).toHaveLength(1);
      expect(storedChannels(company)).toEqual(before);
    });

    it('404 for a missing channel', async () => {
      const company = await newCompany(gw);
      expectNotFound(await gw.request(method, `${channelPath(company, 999999)}/${suffix}`, options));
    });

    it('404 for a missing company', async () => {
      expectNotFound(await gw.request(method, `${channelPath(999999, 1)}/${suffix}`, options));
    });
  });
});

type RequestInitLike = { json?: unknown; form?: string };

// ---------------------------------------------------------------------------------------------
// Secrets

describe('channel credentials are never returned nor logged', () => {
  // [name, create body, PUT body, a create body that is rejected although it carries the secret, a rejected PUT body]
  const secretVariants: [string, (s: string) => Body, (s: string) => Body, (s: string) => Body, (s: string) => Body][] =
    [
      [
        'social_b token',
        (s) => ({ provider: 'social_b', token: s }),
        (s) => ({ token: s }),
        (s) => ({ provider: 'social_b', token: s.padEnd(5000, 'x') }),
        (s) => ({ token: s.padEnd(5000, 'x') }),
      ],
      [
        'chat_a_business token',
        (s) => ({ provider: 'chat_a_business', hosting_type: 'cloud', token: s }),
        (s) => ({ token: s }),
        (s) => ({ provider: 'chat_a_business', hosting_type: 'hybrid', token: s }),
        (s) => ({ token: s.padEnd(5000, 'x') }),
      ],
      [
        'market_a login and password',
        (s) => ({ provider: 'market_a', login: `login-${s}`, password: s }),
        (s) => ({ login: `login-${s}`, password: s }),
        (s) => ({ provider: 'market_a', login: `login-${s}` }),
        (s) => ({ password: s }),
      ],
      [
        'social_c login and password',
        (s) => ({ provider: 'social_c', login: `login-${s}`, password: s }),
        (s) => ({ login: `login-${s}`, password: s }),
        (s) => ({ provider: 'social_c', password: s }),
        (s) => ({ login: s, password: 7 }),
      ],
      [
        'social_c_business token and data',
        (s) => ({ provider: 'social_c_business', token: s, phone: '79161234567', data: { id: '1', access: s } }),
        (s) => ({ token: s }),
        (s) => ({ provider: 'social_c_business', token: s, phone: '79161234567', data: `profile-${s}` }),
        (s) => ({ token: s.padEnd(5000, 'x') }),
      ],
    ];

  it.each(secretVariants)('%s', async (_name, create, update, invalidCreateBody, invalidUpdate) => {
    const company = await newCompany(gw);
    const texts: string[] = [];
    const s1 = secret();
    const created = await createChannel(company, create(s1));
    expectCreated(created);
    const id = created.body.data.external_id as number;
    texts.push(created.text);
    // Prove the secret was really sent and kept.
    expect(storedChannel(id).credentials).toContain(s1);

    const s2 = secret();
    const conflict = await createChannel(company, create(s2));
    expect(conflict.status).toBe(409);
    texts.push(conflict.text);

    const s3 = secret();
    const invalid = await createChannel(await newCompany(gw), { ...create(s3), provider: 'no_such_provider' });
    expect(invalid.status).toBe(422);
    texts.push(invalid.text);

    const s4 = secret();
    const invalidCreate = await createChannel(await newCompany(gw), invalidCreateBody(s4));
    expect(invalidCreate.status).toBe(422);
    texts.push(invalidCreate.text);

    texts.push((await list(company)).text);
    texts.push((await list(company, '?per=1&sort_direction=desc')).text);

    const s5 = secret();
    const updated = await gw.request('PUT', channelPath(company, id), { json: update(s5) });
    expect(updated.status, updated.text).toBe(200);
    texts.push(updated.text);
    expect(storedChannel(id).credentials).toContain(s5);

    const s6 = secret();
    const badUpdate = await gw.request('PUT', channelPath(company, id), { json: invalidUpdate(s6) });
    expect(badUpdate.status).toBe(422);
    texts.push(badUpdate.text);

    for (const action of ['request_code', 'confirm']) {
      texts.push((await gw.request('POST', `${channelPath(company, id)}/${action}`, { json: { password: s5 } })).text);
    }
    texts.push((await gw.request('DELETE', channelPath(company, id))).text);
    texts.push((await list(company)).text);

    const log = gw.logText();
    expect(log.length).toBeGreaterThan(0);
    for (const s of [s1, s2, s3, s4, s5, s6]) {
      for (const text of texts) expect(text).not.toContain(s);
      expect(log).not.toContain(s);
    }
  });

  it('form-encoded secrets are not logged either', async () => {
    const company = await newCompany(gw);
    const s = secret();
    const res = await gw.request('POST', channelsPath(company), { form: `provider=chat_b&token=${s}` });
    expectCreated(res);
    const bad = await gw.request('POST', channelsPath(await newCompany(gw)), {
      form: `provider=social_c_business&token=${s}&phone=1&data=${s}`,
    });
    expect(bad.status).toBe(422);
    expect(res.text + bad.text + (await list(company)).text).not.toContain(s);
    expect(gw.logText()).not.toContain(s);
  });

  it('no secret sent anywhere in this file reached the log', () => {
    expect(allSecrets.length).toBeGreaterThan(10);
    const log = gw.logText();
    expect(allSecrets.filter((s) => log.includes(s))).toEqual([]);
  });
});

describe('what a channel stores', () => {
  it('keeps only the fields of the provider variant, never extra ones a client sends', async () => {
    const company = (await gw.request('POST', '/p1/companies', { json: { name: 'Extra fields' } })).body.data
      .external_id as number;
    const created = await gw.request('POST', `/p1/companies/${company}/channels`, {
      json: {
        provider: 'chat_a',
        sync_messages_from: new Date().toISOString(),
        unexpected: 'x',
        phone_number: '79161234567',
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.external_id as number;
    const put = await gw.request('PUT', `/p1/companies/${company}/channels/${id}`, {
      json: { sync_messages_from: new Date().toISOString(), phone: '79161234567', via_qr_code: 'x' },
    });
    expect(put.status).toBe(200);
    const row = gw.gateway.store.channels.find(company, id)!;
    expect(Object.keys(row.settings)).toEqual(['sync_messages_from']);
    expect(row.credentials).toEqual({});
  });

  it('answers 422, not 500, for a numeric sync_messages_from beyond the dates there are', async () => {
    const company = (await gw.request('POST', '/p1/companies', { json: { name: 'Far future' } })).body.data
      .external_id as number;
    const res = await gw.request('POST', `/p1/companies/${company}/channels`, {
      json: { provider: 'chat_d', sync_messages_from: 9_000_000_000_000 },
    });
    expect(failingFields(res)).toEqual(['sync_messages_from']);
  });
});
