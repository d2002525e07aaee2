// v1 channel actions as the hosted service's pages document them (pact-im/api-doc,
// _includes/v1_channels.md and _includes/v1_jobs.md), where the contract is silent: writing the first
// message answers a job that GET .../jobs/<id> polls and whose result reaches the company's webhook_url
// (a real webhook receiver that verifies every delivery with the standardwebhooks package), and
// user_exists asks the fake connector.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeProvider } from '../helpers/fake-provider.js';
import { expectErrorShape, failingFields, type TestGateway } from '../helpers/gateway.js';
import type { Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';
import { channelPath, compatV1Helpers, expectV1Shapes, startCompatV1Gateway, v1Time } from './compat-v1-fixtures.js';

let gw: TestGateway;
let fake: FakeProvider;
let receiver: Receiver;
let close: () => Promise<void>;
const { secrets, store, newV1Company, newChannel, connectedChatA, hooksOf } = compatV1Helpers(() => ({
  gw,
  fake,
  receiver,
}));

beforeAll(async () => {
  ({ gw, fake, receiver, close } = await startCompatV1Gateway(() => secrets));
});
afterAll(() => close?.());

describe('pact-im/api-doc _includes/v1_channels.md ("How to write first message") and _includes/v1_jobs.md', () => {
  it('answers the job trying_deliver; GET .../jobs/<id> polls it until delivered; webhook_url gets the job result, integer ids and unix date, and no v2 envelope', async () => {
    const company = await newV1Company();
    const channel = await connectedChatA(company.id);
    const started = Math.floor(Date.now() / 1000);
    const res = await gw.request('POST', channelPath(company.id, channel, 'conversations'), {
      form: 'phone=79250000001&message=Hello',
    });
    expect(res.status).toBe(201);
    const job = res.body.data;
    expect(res.body).toEqual({
      status: 'ok',
      data: {
        id: expect.any(Number),
        company_id: company.id,
        channel: { id: channel, type: 'chat_a' },
        state: 'trying_deliver',
        conversation_id: expect.any(Number),
        message_id: expect.any(Number),
        details: null,
        created_at: expect.any(Number),
      },
    });
    expect(job.created_at).toBeGreaterThanOrEqual(started);
    expect(job.created_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(store().messages.findById(job.message_id)!.conversation_id).toBe(job.conversation_id);

    const jobPath = channelPath(company.id, channel, `jobs/${job.id}`);
    await eventually(
      'the job is delivered',
      async () => (await gw.request('GET', jobPath)).body.data.state !== 'trying_deliver',
    );
    expect((await gw.request('GET', jobPath)).body).toEqual({
      status: 'ok',
      data: { ...job, state: 'delivered', details: { result: 'DELIVERED' } },
    });
    // The job id is not the connector's idempotency key: that stays the send's own id, one per job.
    expect(fake.callsOf('connector', `/sessions/${channel}/messages`).at(-1)!.headers['idempotency-key']).toMatch(
      /^job_[0-9a-f]{32}$/,
    );

    await eventually('the job webhook', () => hooksOf(company).some((h) => h.type === 'job'));
    const executed = hooksOf(company).find((h) => h.type === 'job')!;
    expect(executed).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'job',
      event: 'executed',
      company_id: company.id,
      created_at: expect.any(String),
      data: {
        id: job.id,
        result: 'DELIVERED',
        message_id: job.message_id,
        external_id: store().messages.findById(job.message_id)!.external_id,
        date: expect.any(Number),
      },
    });
    expect(executed.data.date).toBeGreaterThanOrEqual(job.created_at);
    // The same send's conversation and message events reach the v1 webhook_url in their v1 rendition, never as v2 envelopes.
    expect(hooksOf(company).filter((h) => 'object' in h)).toEqual([]);
    await eventually('the message ack', () => hooksOf(company).some((h) => h.type === 'message' && h.event === 'ack'));
    expect(
      hooksOf(company).map((h) => `${h.type ?? h.operation}${h.event === undefined ? '' : `/${h.event}`}`),
    ).toEqual([
      'test',
      'qr_code/new',
      'system',
      'conversation/new',
      'message/new',
      'conversation/update',
      'message/ack',
      'job/executed',
    ]);
    const message = store().messages.findById(job.message_id)!;
    const sentNew = hooksOf(company).find((h) => h.type === 'message' && h.event === 'new')!;
    expect(sentNew.data).toEqual({
      external_id: job.message_id,
      external_public_id: null,
      channel_id: channel,
      channel_type: 'chat_a',
      channel: { id: channel, type: 'chat_a' },
      conversation_id: job.conversation_id,
      message: 'Hello',
      location: null,
      income: false,
      created_at: v1Time(message.created_at),
      created_at_timestamp: Math.floor(message.created_at / 1000),
      ack: 1,
      attachments: [],
      job_id: job.id,
    });
    expect(hooksOf(company).find((h) => h.event === 'ack')!.data).toEqual({
      external_id: job.message_id,
      channel: { id: channel, type: 'chat_a' },
      conversation_id: job.conversation_id,
      ack: 1,
    });
    expectV1Shapes(hooksOf(company));
  });

  it('a refusal: the job ends not_delivered with the reason, and the job result says NOT DELIVERED with it', async () => {
    const company = await newV1Company();
    const channel = await connectedChatA(company.id);
    fake.script('connector', {
      status: 400,
      body: { error: { code: 'recipient_refused', title: 'The number is not on the network' } },
    });
    const res = await gw.request('POST', channelPath(company.id, channel, 'conversations'), {
      json: { phone: '79250000002', message: 'Hi' },
    });
    const jobPath = channelPath(company.id, channel, `jobs/${res.body.data.id}`);
    await eventually(
      'the job is finished',
      async () => (await gw.request('GET', jobPath)).body.data.state !== 'trying_deliver',
    );
    expect((await gw.request('GET', jobPath)).body.data).toMatchObject({
      state: 'not_delivered',
      details: { result: 'NOT DELIVERED', reason: 'The number is not on the network' },
    });
    await eventually('the job webhook', () => hooksOf(company).some((h) => h.type === 'job'));
    expect(hooksOf(company).find((h) => h.type === 'job')!.data).toEqual({
      id: res.body.data.id,
      result: 'NOT DELIVERED',
      message_id: res.body.data.message_id,
      external_id: null,
      date: expect.any(Number),
      reason: 'The number is not on the network',
    });
  });

  it("a job is shown only under its own company and channel; the curl example's text= is the message", async () => {
    const company = await newV1Company(null);
    const channel = await connectedChatA(company.id);
    const sent = await gw.request('POST', channelPath(company.id, channel, 'conversations'), {
      form: 'phone=79250000003&text=From%20the%20curl%20example',
    });
    expect(sent.status).toBe(201);
    expect(store().messages.findById(sent.body.data.message_id)!.text).toBe('From the curl example');
    expect(
      failingFields(
        await gw.request('POST', channelPath(company.id, channel, 'conversations'), {
          json: { phone: '79250000003', text: 'a', message: 'b' },
        }),
      ),
    ).toEqual(['text']);

    const other = await newV1Company(null);
    const otherChannel = await connectedChatA(other.id);
    const id = sent.body.data.id as number;
    expect((await gw.request('GET', channelPath(company.id, channel, `jobs/${id}`))).status).toBe(200);
    expectErrorShape(await gw.request('GET', channelPath(other.id, otherChannel, `jobs/${id}`)), 404, 'not_found');
    expectErrorShape(await gw.request('GET', channelPath(company.id, channel, `jobs/${id + 1000}`)), 404, 'not_found');
    expectErrorShape(await gw.request('GET', channelPath(company.id, channel, 'jobs/abc')), 404, 'not_found');
    expectErrorShape(
      await gw.request('GET', channelPath(company.id, channel, `jobs/${id}`), {
        token: await gw.createAccount('stranger'),
      }),
      404,
      'not_found',
    );
    expectErrorShape(
      await gw.request('GET', channelPath(company.id, channel, `jobs/${id}`), { token: null }),
      401,
      'unauthorized',
    );
  });
});

describe('pact-im/api-doc _includes/v1_channels.md ("How to check if user has Whatsapp account")', () => {
  it('GET .../user_exists?phone= answers {status: ok, exists} as the connector says', async () => {
    const company = await newV1Company(null);
    const channel = await newChannel(company.id, { provider: 'chat_a' });
    const check = (query: string) => gw.request('GET', `${channelPath(company.id, channel, 'user_exists')}${query}`);
    expectErrorShape(await check('?phone=79250000001'), 409, 'conflict');
    expect(await fake.connectorCallback(channel, { type: 'state', state: 'enabled' })).toBe(200);
    fake.knownPhones.add('79250000001');
    expect((await check('?phone=79250000001')).body).toEqual({ status: 'ok', exists: true });
    expect((await check('?phone=79250000009')).body).toEqual({ status: 'ok', exists: false });
    expect(fake.callsOf('connector', `/sessions/${channel}/contacts/79250000009`)).toHaveLength(1);
    expect(failingFields(await check(''))).toEqual(['phone']);
    expect(failingFields(await check('?phone=%2B79250000001'))).toEqual(['phone']);
    fake.script('connector', { status: 500, body: { error: { code: 'down', title: 'restarting' } } });
    expectErrorShape(await check('?phone=79250000001'), 502, 'provider_unavailable');
    const bot = await newChannel(company.id, { provider: 'chat_b', token: '1:bot' });
    expectErrorShape(
      await gw.request('GET', `${channelPath(company.id, bot, 'user_exists')}?phone=79250000001`),
      422,
      'wrong_provider',
    );
  });
});
