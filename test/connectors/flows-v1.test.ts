import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emittedEvents } from '../helpers/events.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import {
  ADMIN_TOKEN,
  expectErrorShape,
  failingFields,
  startTestGateway,
  type TestGateway,
} from '../helpers/gateway.js';
import { checkedEvents } from '../helpers/callbacks.js';
import { readQr } from '../helpers/qr.js';
import { eventually } from '../helpers/wait.js';
import { newCompany } from '../helpers/seed.js';

let gw: TestGateway;
let fake: FakeProvider;

beforeAll(async () => {
  fake = await new FakeProvider().start();
  gw = await startTestGateway({
    ...fake.env(),
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_PROVIDER_RETRY_SCHEDULE: '100ms',
  });
});
afterAll(async () => {
  await gw.close();
  await fake.close();
});

const store = () => gw.gateway.store;
const count = () => emittedEvents(store()).length;
async function newChannel(company: number, body: Record<string, unknown>): Promise<number> {
  const res = await gw.request('POST', `/p1/companies/${company}/channels`, { json: body });
  expect(res.status).toBe(201);
  return res.body.data.external_id;
}
const path = (company: number, channel: number, action: string) =>
  `/p1/companies/${company}/channels/${channel}/${action}`;
const state = (channel: number) => store().channels.findLive(channel)!.state;

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

describe('POST .../confirm', () => {
  it('chat_b_personal with a numeric code enables the channel: {result: ok, state: enabled}, auth.update and the v1 state payload', async () => {
    const company = await newCompany(gw);
    const channel = await newChannel(company, { provider: 'chat_b_personal', phone: '79161234567' });
    const before = count();
    const res = await gw.request('POST', path(company, channel, 'confirm'), {
      form: 'confirmation_type=code&code=12345',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'ok', state: 'enabled' });
    expect(state(channel)).toBe('enabled');
    expect(fake.callsOf('connector', `/sessions/${channel}/confirm`).at(-1)!.body).toEqual({
      type: 'code',
      code: '12345',
    });
    const events = checkedEvents(store(), before);
    expect(events.map((e) => e.name)).toEqual(['auth.update', 'channel.state']);
    expect(events[1]!.body).toMatchObject({ type: 'system', severity: 'information', data: { message: 'authorized' } });
    expectErrorShape(
      await gw.request('POST', path(company, channel, 'confirm'), { json: { confirmation_type: 'code', code: 12345 } }),
      409,
      'conflict',
    );
  });

  it('chat_b_personal with a password; validation names the missing field; a wrong code is refused and changes nothing', async () => {
    const company = await newCompany(gw);
    const channel = await newChannel(company, { provider: 'chat_b_personal', phone: '79161234568' });
    expect(
      failingFields(
        await gw.request('POST', path(company, channel, 'confirm'), { json: { confirmation_type: 'password' } }),
      ),
    ).toEqual(['password']);
    expect(
      failingFields(
        await gw.request('POST', path(company, channel, 'confirm'), {
          json: { confirmation_type: 'code', code: 'abc' },
        }),
      ),
    ).toEqual(['code']);
    expect(
      failingFields(
        await gw.request('POST', path(company, channel, 'confirm'), { json: { confirmation_type: 'sms' } }),
      ),
    ).toEqual(['confirmation_type']);
    const before = count();
    const wrong = expectErrorShape(
      await gw.request('POST', path(company, channel, 'confirm'), {
        json: { confirmation_type: 'code', code: '00000' },
      }),
      422,
      'provider_refused',
    );
    expect(wrong[0]!.detail).toContain('The code is not the one sent.');
    expect(state(channel)).toBe('unconfirmed');
    expect(count()).toBe(before);
    const res = await gw.request('POST', path(company, channel, 'confirm'), {
      json: { confirmation_type: 'password', password: 'cloud-password' },
    });
    expect(res.body).toEqual({ result: 'ok', state: 'enabled' });
    expect(gw.logText()).not.toContain('cloud-password');
  });

  it('social_c: the two-factor and challenge follow-ups, then the two-factor variant', async () => {
    const company = await newCompany(gw);
    const channel = await newChannel(company, { provider: 'social_c', login: 'acme', password: 'p' });
    fake.confirmAnswers.push(
      {
        state: 'pending',
        two_factor_requires: [
          { value: 1, key: 'sms' },
          { value: 2, key: 'recovery_code' },
          { value: 3, key: 'totp' },
        ],
      },
      { state: 'pending', confirmation_requires: [{ value: 0, label: 'a***@example.com' }] },
    );
    const first = await gw.request('POST', path(company, channel, 'confirm'), {
      json: { confirmation_code: '123456' },
    });
    expect(first.body).toEqual({
      result: 'ok',
      data: {
        two_factor_requires: true,
        details: [
          { value: 1, key: 'sms' },
          { value: 2, key: 'recovery_code' },
          { value: 3, key: 'totp' },
        ],
      },
    });
    const second = await gw.request('POST', path(company, channel, 'confirm'), {
      json: { confirmation_code: '123456' },
    });
    expect(second.body).toEqual({
      result: 'ok',
      data: { confirmation_requires: true, details: [{ value: 0, label: 'a***@example.com' }] },
    });
    expect(state(channel)).toBe('unconfirmed');
    expect(
      failingFields(
        await gw.request('POST', path(company, channel, 'confirm'), {
          json: { confirmation_type: 'two_factor', confirmation_code: '1' },
        }),
      ),
    ).toEqual(['confirmation_variant']);
    const done = await gw.request('POST', path(company, channel, 'confirm'), {
      form: 'confirmation_type=two_factor&confirmation_variant=1&confirmation_code=654321',
    });
    expect(done.body).toEqual({ result: 'ok' });
    expect(fake.callsOf('connector', `/sessions/${channel}/confirm`).at(-1)!.body).toEqual({
      type: 'two_factor',
      code: '654321',
      variant: 1,
    });
    expect(state(channel)).toBe('enabled');
  });

  it('a connector failing with 500 answers 502 provider_unavailable and changes nothing', async () => {
    const company = await newCompany(gw);
    const channel = await newChannel(company, { provider: 'chat_b_personal', phone: '79161234569' });
    fake.script('connector', { status: 500, body: { error: { code: 'down', title: 'connector restarting' } } });
    expectErrorShape(
      await gw.request('POST', path(company, channel, 'confirm'), { json: { confirmation_type: 'code', code: 1 } }),
      502,
      'provider_unavailable',
    );
    expect(state(channel)).toBe('unconfirmed');
  });

  it('wrong provider → 422 wrong_provider', async () => {
    const company = await newCompany(gw);
    const channel = await newChannel(company, { provider: 'chat_a' });
    expectErrorShape(
      await gw.request('POST', path(company, channel, 'confirm'), { json: { confirmation_type: 'code', code: 1 } }),
      422,
      'wrong_provider',
    );
  });
});

describe('enable_page_instagram', () => {
  it('takes one of the loaded pages and a sync_period, by GET query or POST body', async () => {
    const company = await newCompany(gw);
    fake.sessionAnswers.social_c_business = { state: 'pending' };
    const channel = await newChannel(company, {
      provider: 'social_c_business',
      token: 'sc-token',
      phone: '79161234567',
      data: { id: '42', name: 'Acme' },
    });
    expect(fake.session(channel)!.body.credentials).toEqual({ token: 'sc-token', data: { id: '42', name: 'Acme' } });
    expect(
      failingFields(
        await gw.request(
          'GET',
          `${path(company, channel, 'enable_page_instagram')}?page_id=17841400008460056&sync_period=year`,
        ),
      ),
    ).toEqual(['sync_period']);
    expect(
      failingFields(await gw.request('GET', `${path(company, channel, 'enable_page_instagram')}?sync_period=day`)),
    ).toEqual(['page_id']);
    const unknown = await gw.request(
      'GET',
      `${path(company, channel, 'enable_page_instagram')}?page_id=999&sync_period=day`,
    );
    expect(failingFields(unknown)).toEqual(['page_id']);
    expect(unknown.body.errors[0].detail).toContain('17841400008460056');
    const res = await gw.request(
      'GET',
      `${path(company, channel, 'enable_page_instagram')}?page_id=17841400008460056&sync_period=week`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      data: { external_id: channel, page_id: '17841400008460056', sync_period: 'week', state: 'enabled' },
    });
    expect(fake.callsOf('connector', `/sessions/${channel}/pages/17841400008460056`).at(-1)!.body).toEqual({
      sync_period: 'week',
    });
    const post = await gw.request('POST', path(company, channel, 'enable_page_instagram'), {
      form: 'page_id=17841400008460057&sync_period=all',
    });
    expect(post.body.data).toMatchObject({ page_id: '17841400008460057', sync_period: 'all' });
    const bot = await newChannel(company, { provider: 'chat_b', token: '1:b' });
    expectErrorShape(
      await gw.request('GET', `${path(company, bot, 'enable_page_instagram')}?page_id=1&sync_period=day`),
      422,
      'wrong_provider',
    );
  });
});

describe('POST .../conversations (write first) and the v1 job webhook', () => {
  it('chat_a: message → 201 with the job id; the job result arrives as job.executed DELIVERED', async () => {
    const company = await newCompany(gw);
    const channel = await newChannel(company, { provider: 'chat_a' });
    expectErrorShape(
      await gw.request('POST', path(company, channel, 'conversations'), {
        json: { phone: '491701112233', message: 'Hi' },
      }),
      409,
      'conflict',
    );
    await fake.connectorCallback(channel, { type: 'state', state: 'enabled' });
    expect(
      failingFields(
        await gw.request('POST', path(company, channel, 'conversations'), {
          json: { phone: '+491701112233', message: 'Hi' },
        }),
      ),
    ).toEqual(['phone']);
    expect(
      failingFields(
        await gw.request('POST', path(company, channel, 'conversations'), { json: { phone: '491701112233' } }),
      ),
    ).toEqual(['message']);
    expect(
      failingFields(
        await gw.request('POST', path(company, channel, 'conversations'), {
          json: { phone: '491701112233', template: { id: 't', language_code: 'en', parameters: [] } },
        }),
      ),
    ).toEqual(['template']);
    const before = count();
    const res = await gw.request('POST', path(company, channel, 'conversations'), {
      form: 'phone=491701112233&message=Guten%20Tag',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'ok',
      data: { id: expect.any(Number), state: 'trying_deliver', message_id: expect.any(Number) },
    });
    const { id: jobId, message_id: messageId } = res.body.data;
    const sendJobId = store().v1Jobs.find(company, channel, jobId)!.send_job_id;
    await eventually('the job is executed', () => emittedEvents(store()).some((e) => e.name === 'job.executed'));
    const call = fake.callsOf('connector', `/sessions/${channel}/messages`).at(-1)!;
    expect(call.headers['idempotency-key']).toBe(sendJobId);
    expect(call.body).toMatchObject({ to: { id: '491701112233', phone: '491701112233' }, text: 'Guten Tag' });
    const events = checkedEvents(store(), before);
    // A new conversation is unreplied; the outgoing message marks it replied.
    expect(events.map((e) => e.name)).toEqual([
      'conversation.create',
      'message.create',
      'conversation.update',
      'message.update',
      'job.executed',
    ]);
    expect(events[4]!.body).toMatchObject({
      type: 'job',
      event: 'executed',
      company_id: company,
      data: {
        id: jobId,
        result: 'DELIVERED',
        message_id: messageId,
        external_id: store().messages.findById(messageId)!.external_id,
      },
    });
  });

  it('chat_a_business: a synced template with its parameters; a refusal is NOT DELIVERED with the reason', async () => {
    const company = await newCompany(gw);
    fake.templates = [
      {
        id: '1234567890',
        name: 'order_shipped',
        language: 'de',
        status: 'APPROVED',
        components: [{ type: 'BODY', text: 'Hallo {{1}}, Ihre Bestellung {{2}} ist unterwegs.' }],
      },
    ];
    const channel = await newChannel(company, {
      provider: 'chat_a_business',
      hosting_type: 'cloud',
      token: 'EAAB-token',
      vendor_channel_id: 'PN9',
      vendor_client_id: 'WABA9',
    });
    await eventually('templates are synced', () => store().templates.findByBizId(company, '1234567890') !== undefined);
    const bad = await gw.request('POST', path(company, channel, 'conversations'), {
      json: { phone: '491701112233', template: { id: '1234567890', language_code: 'de', parameters: ['Jonas'] } },
    });
    expect(failingFields(bad)).toEqual(['template/parameters']);
    expect(
      failingFields(
        await gw.request('POST', path(company, channel, 'conversations'), {
          json: { phone: '491701112233', message: 'Hi' },
        }),
      ),
    ).toEqual(['message']);
    expect(
      failingFields(
        await gw.request('POST', path(company, channel, 'conversations'), {
          json: { phone: '491701112233', template: { id: 'nope', language_code: 'de', parameters: [] } },
        }),
      ),
    ).toEqual(['template/id']);

    const before = count();
    const res = await gw.request('POST', path(company, channel, 'conversations'), {
      form: 'phone=491701112233&template[id]=1234567890&template[language_code]=de&template[parameters][]=Jonas&template[parameters][]=A-17',
    });
    expect(res.status).toBe(201);
    await eventually('the job is executed', () =>
      checkedEvents(store(), before).some((e) => e.name === 'job.executed'),
    );
    const call = fake.callsOf('cloud', '/v21.0/PN9/messages').at(-1)!;
    expect(call.body).toEqual({
      messaging_product: 'chat_a',
      recipient_type: 'individual',
      to: '491701112233',
      type: 'template',
      template: {
        name: 'order_shipped',
        language: { code: 'de' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Jonas' },
              { type: 'text', text: 'A-17' },
            ],
          },
        ],
      },
    });
    const message = store().messages.findById(res.body.data.message_id)!;
    expect(message.text).toBe('Hallo Jonas, Ihre Bestellung A-17 ist unterwegs.');
    expect(checkedEvents(store(), before).find((e) => e.name === 'job.executed')!.body.data).toMatchObject({
      result: 'DELIVERED',
      external_id: message.external_id,
    });

    fake.script('cloud', {
      status: 400,
      body: { error: { code: 132001, message: 'Template name does not exist in the translation' } },
    });
    const later = count();
    const refused = await gw.request('POST', path(company, channel, 'conversations'), {
      json: { phone: '491701112244', template: { id: '1234567890', language_code: 'en', parameters: ['A', 'B'] } },
    });
    await eventually('the job is executed', () => checkedEvents(store(), later).some((e) => e.name === 'job.executed'));
    const executed = checkedEvents(store(), later).find((e) => e.name === 'job.executed')!;
    expect(executed.body.data).toEqual({
      id: refused.body.data.id,
      result: 'NOT DELIVERED',
      message_id: refused.body.data.message_id,
      external_id: null,
      date: expect.any(Number),
      reason: 'Template name does not exist in the translation',
    });
  });

  it('only messenger A channels write first (422 wrong_provider)', async () => {
    const company = await newCompany(gw);
    const bot = await newChannel(company, { provider: 'chat_b', token: '1:b' });
    expectErrorShape(
      await gw.request('POST', path(company, bot, 'conversations'), { json: { phone: '491701112233', message: 'Hi' } }),
      422,
      'wrong_provider',
    );
  });
});
