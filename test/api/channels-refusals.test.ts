// Black-box HTTP tests of what the v1 channel endpoints refuse (contract section 4 "v1 Channels",
// request_code, confirm, conversations, enable_page_instagram; section 7 errors) against a real gateway
// on a temp SQLite file: 404 for an unknown or malformed id and for another company's or account's
// channel, 401 without a valid token, and the connector-dependent actions without a connector; none
// changes a stored channel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import {
  channelHelpers,
  channelPath,
  channelsPath,
  expectNotFound,
  startChannelsGateway,
  type Body,
} from './channel-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { createChannel, createdId, listItems, storedChannels, storedChannel } = channelHelpers(() => gw);

beforeAll(async () => {
  ({ gw, close } = await startChannelsGateway());
});
afterAll(() => close?.());

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
