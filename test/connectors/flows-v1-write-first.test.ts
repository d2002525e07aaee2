// Writing first through a v1 channel and the v1 job webhook, against the fake provider (contract
// section 4 "v1 Channels", "Create conversation (first message, v1)"; section 6 events): a chat_a
// message and a chat_a_business template become a send job whose result arrives as job.executed,
// DELIVERED or NOT DELIVERED with the provider's reason; other providers are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emittedEvents } from '../helpers/events.js';
import type { FakeProvider } from '../helpers/fake-provider.js';
import { expectErrorShape, failingFields, type TestGateway } from '../helpers/gateway.js';
import { checkedEvents } from '../helpers/callbacks.js';
import { eventually } from '../helpers/wait.js';
import { newCompany } from '../helpers/seed.js';
import { flowsV1Helpers, path, startFlowsV1Gateway } from './flows-v1-fixtures.js';

let gw: TestGateway;
let fake: FakeProvider;
let close: () => Promise<void>;
const { store, count, newChannel } = flowsV1Helpers(() => gw);

beforeAll(async () => {
  ({ gw, fake, close } = await startFlowsV1Gateway());
});
afterAll(() => close?.());

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
