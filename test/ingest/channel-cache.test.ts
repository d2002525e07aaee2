import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAuth } from '../../src/domain/auths.js';
import { CACHED_CHANNELS } from '../../src/store/resources/channels.js';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { callbackInfo, fixture, postBot, rowCounts } from '../helpers/callbacks.js';

// Provider callbacks read the channel and its callback settings from a cache (findLiveCached,
// getCached): every write to a channel must be seen by the very next callback.

let gw: TestGateway;
const store = () => gw.gateway.store;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
});
afterAll(() => gw.close());

async function botChannel(): Promise<{ companyId: number; channelId: number; secretToken: string }> {
  const companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Cache Co' } })).body.data
    .external_id as number;
  const channelId = (
    await gw.request('POST', `/p1/companies/${companyId}/channels`, {
      json: { provider: 'chat_b', token: '123456:bot-token' },
    })
  ).body.data.external_id as number;
  return { companyId, channelId, secretToken: (await callbackInfo(gw, channelId)).secrets.secret_token! };
}

const update = (n: number) =>
  fixture('bot/text')
    .replace('815207301', String(815_300_000 + n))
    .replace('"message_id": 1201', `"message_id": ${5000 + n}`);

describe('the channel cache of provider callbacks', () => {
  it('refuses a channel deleted right after it was cached (API delete), storing nothing', async () => {
    const { companyId, channelId, secretToken } = await botChannel();
    expect((await postBot(gw, channelId, update(1), secretToken)).status).toBe(200);
    expect(store().channels.findLiveCached(channelId)?.id).toBe(channelId);
    await gw.request('DELETE', `/p1/companies/${companyId}/channels/${channelId}`);
    const counts = rowCounts(store());
    expectErrorShape(await postBot(gw, channelId, update(2), secretToken), 404, 'not_found');
    expect(rowCounts(store())).toEqual(counts);
  });

  it('refuses a channel deleted through the store between two callbacks of the same moment', async () => {
    const { channelId, secretToken } = await botChannel();
    expect((await postBot(gw, channelId, update(3), secretToken)).status).toBe(200);
    deleteAuth(store(), store().channels.findLive(channelId)!);
    expectErrorShape(await postBot(gw, channelId, update(4), secretToken), 404, 'not_found');
  });

  it('answers every write at once: state, connection, delete; a rolled back write is not kept', async () => {
    const { channelId } = await botChannel();
    const channels = store().channels;
    const cached = channels.findLiveCached(channelId)!;
    expect(Object.isFrozen(cached) && Object.isFrozen(cached.settings)).toBe(true);
    expect(channels.findLiveCached(channelId)).toBe(cached);

    channels.setState(channelId, cached.state, 'disabled');
    expect(channels.findLiveCached(channelId)?.state).toBe('disabled');

    channels.updateConnection(channelId, { marker: 1 }, {});
    expect(channels.findLiveCached(channelId)?.settings).toEqual({ marker: 1 });

    // Read inside a transaction that is rolled back: the cache answers the committed row after it.
    expect(() =>
      store().transaction(() => {
        channels.updateConnection(channelId, { marker: 2 }, {});
        expect(channels.findLiveCached(channelId)?.settings).toEqual({ marker: 2 });
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(channels.findLiveCached(channelId)?.settings).toEqual({ marker: 1 });

    channels.delete(channelId);
    expect(channels.findLiveCached(channelId)).toBeUndefined();
  });

  it('caches callback settings as stored', async () => {
    const { channelId } = await botChannel();
    const settings = store().callbacks.getCached(channelId);
    expect(settings).toEqual(store().callbacks.get(channelId));
    expect(Object.isFrozen(settings)).toBe(true);
    expect(() => store().callbacks.getCached(999_999)).toThrow('has no callback settings');
  });
});

describe('the size of the channel caches', () => {
  it('keeps the most recently used channels only, and answers an evicted one from the store', async () => {
    const { companyId, channelId, secretToken } = await botChannel();
    expect((await postBot(gw, channelId, update(10), secretToken)).status).toBe(200);
    const first = {
      channel: store().channels.findLiveCached(channelId)!,
      settings: store().callbacks.getCached(channelId),
    };

    // Every company has one channel per provider: as many others as the caches keep, each read once.
    const accountId = store()
      .db.prepare('SELECT account_id FROM companies WHERE id = ?')
      .pluck()
      .get(companyId) as number;
    const others = store().transaction(() =>
      Array.from({ length: CACHED_CHANNELS }, (_, n) => {
        const other = store().companies.insert({
          accountId,
          name: `Busy ${n}`,
          phone: null,
          description: null,
          webhookUrl: null,
        });
        const channel = store().channels.insert({
          companyId: other.id,
          provider: 'chat_b',
          state: 'enabled',
          settings: {},
          credentials: { token: `${n}:bot` },
        });
        store().callbacks.create({
          channelId: channel.id,
          api: 'v1',
          signingSecret: 'ab'.repeat(32),
          verifyToken: 'cd'.repeat(16),
        });
        return channel.id;
      }),
    );
    for (const id of others) {
      store().channels.findLiveCached(id);
      store().callbacks.getCached(id);
    }
    const last = others.at(-1)!;
    expect(store().channels.findLiveCached(last)).toBe(store().channels.findLiveCached(last));

    // The first channel was read least recently: it is read again, equal to what was cached, and its callbacks go on.
    const again = store().channels.findLiveCached(channelId)!;
    expect(again).not.toBe(first.channel);
    expect(again).toEqual(first.channel);
    expect(store().callbacks.getCached(channelId)).not.toBe(first.settings);
    expect(store().callbacks.getCached(channelId)).toEqual(first.settings);
    expect((await postBot(gw, channelId, update(11), secretToken)).status).toBe(200);
  });
});

describe('the log line of a callback', () => {
  it('is the request line, with the request id and the callback outcome, and nothing else is logged for it', async () => {
    const { channelId, secretToken } = await botChannel();
    expect((await postBot(gw, channelId, update(9), secretToken)).status).toBe(200);
    const lines = gw
      .logText()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const request = lines.filter((l) => l.msg === 'request' && l.path === `/callbacks/chat_b/${channelId}`);
    expect(request).toHaveLength(1);
    const { time, reqId, ms, ...rest } = request[0]!;
    expect(Object.keys(request[0]!)).toEqual([
      'level',
      'time',
      'service',
      'reqId',
      'method',
      'path',
      'status',
      'ms',
      'channel',
      'family',
      'duplicate',
      'messages',
      'events',
      'msg',
    ]);
    expect(rest).toEqual({
      level: 30,
      service: 'gateway',
      method: 'POST',
      path: `/callbacks/chat_b/${channelId}`,
      status: 200,
      channel: channelId,
      family: 'bot',
      duplicate: false,
      messages: 1,
      events: 2,
      msg: 'request',
    });
    expect(lines.filter((l) => l.reqId === reqId)).toHaveLength(1);
    expect(typeof time).toBe('string');
    expect(typeof ms).toBe('number');
  });
});
