// Black-box HTTP tests of changing and deleting a v1 channel (contract section 4 "v1 Channels"; section
// 3 "Channel / auth", DELETE leaves it disabled) against a real gateway on a temp SQLite file: what PUT
// takes per provider (token, login and password, sync_messages_from) and stores, and what DELETE leaves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failingFields, type TestGateway, type TestResponse } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import {
  channelHelpers,
  channelPath,
  DAY,
  expectNotFound,
  isoAgo,
  secret,
  startChannelsGateway,
  TOKEN_PROVIDERS,
  unixAgo,
  type Body,
} from './channel-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { createdId, listItems, storedChannels, storedChannel } = channelHelpers(() => gw);

// The secrets this file sends reach no log line either (channels-secrets.test.ts proves it of its own).
beforeAll(async () => {
  ({ gw, close } = await startChannelsGateway({ checkSecretsOnClose: true }));
});
afterAll(() => close?.());

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
