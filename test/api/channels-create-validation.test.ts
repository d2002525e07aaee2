// Black-box HTTP tests of the v1 create channel validation (contract section 4 "v1 Channels", "Create
// channel variants"; section 8, sync_messages_from not older than one month) against a real gateway
// on a temp SQLite file: missing fields, enumerations, strict JSON types, phone rules and
// sync_messages_from, each a 422 naming exactly the failing fields and storing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import {
  channelHelpers,
  DAY,
  isoAgo,
  startChannelsGateway,
  TOKEN_PROVIDERS,
  unixAgo,
  type Body,
} from './channel-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { createChannel, createdId, storedChannels, expectRejected } = channelHelpers(() => gw);

beforeAll(async () => {
  ({ gw, close } = await startChannelsGateway());
});
afterAll(() => close?.());

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
