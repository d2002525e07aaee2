// Black-box HTTP tests of creating v1 channels (contract section 4 "v1 Channels", "Create channel
// variants"; section 8, one channel per provider per company) against a real gateway on a temp SQLite
// file: every variant accepted as JSON and as a form, with the row it stores, and the 409 for a second
// live channel of a provider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import {
  channelHelpers,
  channelPath,
  channelsPath,
  DAY,
  expectCreated,
  isoAgo,
  secret,
  startChannelsGateway,
  TOKEN_PROVIDERS,
  unixAgo,
  type Body,
} from './channel-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { createChannel, createdId, listItems, storedChannels, expectRejected } = channelHelpers(() => gw);

// The secrets this file sends reach no log line either (channels-secrets.test.ts proves it of its own).
beforeAll(async () => {
  ({ gw, close } = await startChannelsGateway({ checkSecretsOnClose: true }));
});
afterAll(() => close?.());

// ---------------------------------------------------------------------------------------------
// Every variant accepted

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
