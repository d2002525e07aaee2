// How a callback finds its channel and checks it: ids in the path, the settings read (never created on
// the fly), the subscribe handshake and its token comparison, the configured app secret in place of
// the channel's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sameSecret } from '../../src/domain/tokens.js';
import { Forbidden } from '../../src/errors/errors.js';
import { httpStatusOf } from '../../src/http/render-errors.js';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { callbackInfo, cloudBody, createCallbackChannels, fixture, postCloud } from '../helpers/callbacks.js';

let gw: TestGateway;
let companyId: number;
let cloudChannel: number;
let appSecret: string;
let verifyToken: string;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  ({ companyId, cloudChannel, appSecret, verifyToken } = await createCallbackChannels(gw, 'Settings Co'));
});
afterAll(() => gw.close());

const store = () => gw.gateway.store;
const admin = { token: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };

describe('channel ids in the path, secrets compared, the handshake refused', () => {
  it('sameSecret compares any two texts, whatever their lengths', () => {
    expect(sameSecret('token-abc', 'token-abc')).toBe(true);
    expect(sameSecret('token-abc', 'token-abd')).toBe(false);
    expect(sameSecret('token', 'token-abc')).toBe(false);
    expect(sameSecret('', '')).toBe(true);
  });

  it('the handshake refuses with the shared Forbidden error', () => {
    const error = new Forbidden('no');
    expect([httpStatusOf(error), error.code, error.title]).toEqual([403, 'forbidden', 'Forbidden']);
  });

  it('ids in the path are read by pathId: anything else is a channel that was not found', async () => {
    for (const id of ['0', 'abc', '12345678901234567']) {
      const res = await gw.request('GET', `/admin/channels/${id}/callback`, admin);
      expect(expectErrorShape(res, 404, 'not_found')[0]!.detail).toBe(`Channel ${id} was not found.`);
      const callback = await postCloud(gw, id as unknown as number, cloudBody(), appSecret);
      expect(expectErrorShape(callback, 404, 'not_found')[0]!.detail).toBe(
        `chat_a_business channel ${id} was not found.`,
      );
    }
  });
});

describe('callback settings are read, never created on the fly', () => {
  it('the subscribe handshake validates its query first, then compares the token', async () => {
    const url = (query: string) => `/callbacks/chat_a_business/${cloudChannel}?${query}`;
    // Malformed queries are 422 whatever the token, a wrong mode included.
    expectErrorShape(
      await gw.request('GET', url('hub.mode=subscribe&hub.verify_token=nope'), { token: null }),
      422,
      'validation_failed',
    );
    expectErrorShape(
      await gw.request('GET', url(`hub.mode=unsubscribe&hub.verify_token=${verifyToken}&hub.challenge=1`), {
        token: null,
      }),
      422,
      'validation_failed',
    );
    expectErrorShape(
      await gw.request(
        'GET',
        url(`hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.verify_token=x&hub.challenge=1`),
        { token: null },
      ),
      422,
      'validation_failed',
    );
    expectErrorShape(
      await gw.request('GET', url('hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1'), { token: null }),
      403,
      'forbidden',
    );
    expect(
      (
        await gw.request('GET', url(`hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=42`), {
          token: null,
        })
      ).text,
    ).toBe('42');
  });

  it('a GET of a channel without settings writes nothing', async () => {
    const created = await gw.request('POST', `/api/p2/companies/${companyId}/auths`, { json: { provider: 'chat_a' } });
    expect(created.status, created.text).toBe(201);
    const channel = created.body.auth.id as number;
    store().db.prepare('DELETE FROM channel_callbacks WHERE channel_id = ?').run(channel);
    const res = await gw.request('GET', `/admin/channels/${channel}/callback`, admin);
    expect(res.status).toBe(500);
    expect(store().db.prepare('SELECT count(*) AS n FROM channel_callbacks WHERE channel_id = ?').get(channel)).toEqual(
      { n: 0 },
    );
    expect(JSON.stringify(res.body)).not.toMatch(/secret_token/);
  });
});

describe('GATEWAY_CHAT_A_BUSINESS_APP_SECRET', () => {
  // The channel's own secret stays in its settings, unused: the store alone shows it.
  it('verifies every cloud-style channel with the configured app secret instead', async () => {
    const configured = 'operator-app-secret-0123456789abcdef';
    const other = await startTestGateway({
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_CHAT_A_BUSINESS_APP_SECRET: configured,
    });
    try {
      const company = (await other.request('POST', '/p1/companies', { json: { name: 'Configured' } })).body.data
        .external_id;
      const channel = (
        await other.request('POST', `/p1/companies/${company}/channels`, {
          json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 't' },
        })
      ).body.data.external_id;
      const info = await callbackInfo(other, channel);
      expect(info.secrets).toMatchObject({ app_secret: null, app_secret_source: 'configuration' });
      const perChannel = other.gateway.store.callbacks.find(channel)!.signing_secret;
      expectErrorShape(await postCloud(other, channel, fixture('cloud/text'), perChannel), 401, 'unauthorized');
      expect((await postCloud(other, channel, fixture('cloud/text'), configured)).status).toBe(200);
      expect(other.logText()).not.toContain(configured);
    } finally {
      await other.close();
    }
  });
});
