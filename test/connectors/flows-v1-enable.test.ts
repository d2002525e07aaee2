// The v1 connection steps that enable a channel, against the fake provider's connector (contract
// section 4 "v1 Channels": "confirm", and the social business flow of "Create channel variants"):
// confirm with a code, a password or social_c's follow-ups, its validation, refusals and outages
// changing nothing; enable_page_instagram choosing one of the loaded pages and a sync_period.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeProvider } from '../helpers/fake-provider.js';
import { expectErrorShape, failingFields, type TestGateway } from '../helpers/gateway.js';
import { checkedEvents } from '../helpers/callbacks.js';
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
