// The v1 connection steps that start a session, against the fake provider's connector (contract
// section 4 "v1 Channels": "Create channel variants" and "request_code"): creating a chat_a channel
// starts its QR session with the callback address and secret, and request_code answers each
// provider's own body, refusing another provider's channel and an enabled one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeProvider } from '../helpers/fake-provider.js';
import { expectErrorShape, failingFields, type TestGateway } from '../helpers/gateway.js';
import { checkedEvents } from '../helpers/callbacks.js';
import { readQr } from '../helpers/qr.js';
import { newCompany } from '../helpers/seed.js';
import { flowsV1Helpers, path, startFlowsV1Gateway } from './flows-v1-fixtures.js';

let gw: TestGateway;
let fake: FakeProvider;
let close: () => Promise<void>;
const { store, count, newChannel, state } = flowsV1Helpers(() => gw);

beforeAll(async () => {
  ({ gw, fake, close } = await startFlowsV1Gateway());
});
afterAll(() => close?.());

describe('v1 create starts the session', () => {
  it('chat_a by QR: the connector gets the callback address and secret; the QR arrives as qr_code and auth.update', async () => {
    const company = await newCompany(gw);
    const before = count();
    const channel = await newChannel(company, { provider: 'chat_a' });
    const session = fake.session(channel)!;
    expect(session.callbackUrl).toBe(`${gw.baseUrl}/callbacks/chat_a/${channel}`);
    expect(session.secret).toMatch(/^whsec_/);
    expect(fake.callsOf('connector', `/sessions/${channel}`)[0]!.headers.authorization).toBe(
      'Bearer connector-token-of-the-tests',
    );
    const events = checkedEvents(store(), before);
    expect(events.map((e) => e.name)).toEqual(['auth.create', 'auth.update', 'channel.qr_code']);
    expect(events[1]!.body.object).toMatchObject({ id: channel, state: 'unconfirmed' });
    expect(readQr((events[1]!.body.object as { qr: string }).qr)).toBe(`2@fakeqr${channel}`);
    expect(events[2]!.body).toMatchObject({
      entity: 'channel',
      type: 'qr_code',
      event: 'new',
      channel_id: channel,
      channel_type: 'chat_a',
    });
    expect(readQr(events[2]!.body.data as string)).toBe(`2@fakeqr${channel}`);
    // The connector's own callbacks are verified with that secret: a refreshed QR, then the scan.
    expect(await fake.connectorCallback(channel, { type: 'qr', qr: '2@refreshed' })).toBe(200);
    expect(await fake.connectorCallback(channel, { type: 'state', state: 'enabled' })).toBe(200);
    expect(state(channel)).toBe('enabled');
    expect(gw.logText()).not.toContain(session.secret);
  });
});

describe('POST .../request_code', () => {
  it('chat_a answers {sessionId, code, ttl}', async () => {
    const company = await newCompany(gw);
    const channel = await newChannel(company, { provider: 'chat_a', phone: '79161234567' });
    const res = await gw.request('POST', path(company, channel, 'request_code'), { form: '' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sessionId: `sess-${channel}`, code: 'ABCD-EFGH', ttl: '60' });
  });

  it('chat_b_personal answers {code_length, code_type, expires_in, next_type, session_id, status}', async () => {
    const company = await newCompany(gw);
    const channel = await newChannel(company, { provider: 'chat_b_personal', phone: '79161234567' });
    const res = await gw.request('POST', path(company, channel, 'request_code'), { json: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code_length: 5,
      code_type: 'sms',
      expires_in: 120,
      next_type: 'call',
      session_id: 987654,
      status: 'ok',
    });
  });

  it('social_c needs challenge_variant or challenge_type=two_factor, and answers {result: ok}', async () => {
    const company = await newCompany(gw);
    const channel = await newChannel(company, { provider: 'social_c', login: 'acme', password: 'secret-pass' });
    expect(failingFields(await gw.request('POST', path(company, channel, 'request_code'), { json: {} }))).toEqual([
      'challenge_variant',
      'challenge_type',
    ]);
    expect(
      failingFields(
        await gw.request('POST', path(company, channel, 'request_code'), { json: { challenge_type: 'sms' } }),
      ),
    ).toEqual(['challenge_type']);
    const res = await gw.request('POST', path(company, channel, 'request_code'), { form: 'challenge_variant=1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'ok' });
    expect(fake.callsOf('connector', `/sessions/${channel}/request_code`).at(-1)!.body).toEqual({
      challenge_variant: '1',
    });
    expect(
      (await gw.request('POST', path(company, channel, 'request_code'), { json: { challenge_type: 'two_factor' } }))
        .body,
    ).toEqual({ result: 'ok' });
  });

  it('wrong provider → 422 wrong_provider; an enabled channel → 409', async () => {
    const company = await newCompany(gw);
    const bot = await newChannel(company, { provider: 'chat_b', token: '1:bot' });
    expectErrorShape(await gw.request('POST', path(company, bot, 'request_code'), { json: {} }), 422, 'wrong_provider');
    const chatA = await newChannel(company, { provider: 'chat_a' });
    await fake.connectorCallback(chatA, { type: 'state', state: 'enabled' });
    expectErrorShape(await gw.request('POST', path(company, chatA, 'request_code'), { json: {} }), 409, 'conflict');
  });
});
