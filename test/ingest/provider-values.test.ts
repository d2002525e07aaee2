// What the gateway keeps of the values in provider callbacks: times within bounds (422 otherwise, never
// 500), and in a message's details only the provider fields it knows. Through HTTP alone (the v2
// API, the company's webhooks), so it runs against a cluster too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { callbackInfo, cloudBody, createCallbackChannels, postBot, postCloud } from '../helpers/callbacks.js';
import { observeCompanyEvents, type CompanyEvents } from '../helpers/company-events.js';
import { conversationWith, messageWithExternalId, messagingState } from '../helpers/company-messages.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { eventually } from '../helpers/wait.js';

let gw: TestGateway;
let provider: FakeProvider;
let events: CompanyEvents;
let companyId: number;
let botChannel: number;
let botSecret: string;
let cloudChannel: number;
let appSecret: string;

beforeAll(async () => {
  provider = await new FakeProvider().start();
  gw = await startTestGateway({ ...TO_RECEIVERS, ...provider.env() });
  ({ companyId, botChannel, botSecret, cloudChannel, appSecret } = await createCallbackChannels(
    gw,
    'Provider Values Co',
  ));
  events = await observeCompanyEvents(gw, companyId);
});
afterAll(async () => {
  await gw.close();
  await events.close();
  await provider.close();
});

/** Every conversation and message of the company, and how many events it emitted. */
async function snapshot() {
  return { start: await events.count(), state: await messagingState(gw, companyId) };
}
let seq = 0;
const nextId = () => `review-${++seq}`;

function botBody(message: Record<string, unknown>, key = 'message'): string {
  return JSON.stringify({
    update_id: 900000 + ++seq,
    [key]: { message_id: seq, chat: { id: 555, type: 'private', first_name: 'Ivo' }, date: 1749416383, ...message },
  });
}
async function detailsOf(externalId: string, company = companyId): Promise<unknown> {
  return (await messageWithExternalId(gw, company, externalId)).details;
}

describe('provider times are bounded (422, never 500)', () => {
  it('bot-style date and edit_date', async () => {
    const before = await snapshot();
    const date = await postBot(gw, botChannel, botBody({ date: 9000000000000, text: 'far future' }), botSecret);
    expect(expectErrorShape(date, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual(['/message/date']);
    const edit = await postBot(
      gw,
      botChannel,
      botBody({ edit_date: 9000000000000, text: 'edited' }, 'edited_message'),
      botSecret,
    );
    expect(expectErrorShape(edit, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual([
      '/edited_message/edit_date',
    ]);
    // The bound itself is accepted.
    expect(
      (await postBot(gw, botChannel, botBody({ date: 99_999_999_999, text: 'at the bound' }), botSecret)).status,
    ).toBe(200);
    expect((await messagingState(gw, companyId)).messages).toEqual([
      ...before.state.messages,
      await messageWithExternalId(gw, companyId, `555:${seq}`),
    ]);
  });

  it('cloud-style message and status timestamps', async () => {
    const before = await snapshot();
    const message = await postCloud(
      gw,
      cloudChannel,
      cloudBody([
        { id: nextId(), from: '4915112345678', timestamp: '999999999999', type: 'text', text: { body: 'hi' } },
      ]),
      appSecret,
    );
    expect(expectErrorShape(message, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual([
      '/entry/0/changes/0/value/messages/0/timestamp',
    ]);
    const status = await postCloud(
      gw,
      cloudChannel,
      cloudBody([], [{ id: 'x', status: 'read', timestamp: '999999999999' }]),
      appSecret,
    );
    expect(expectErrorShape(status, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual([
      '/entry/0/changes/0/value/statuses/0/timestamp',
    ]);
    expect(await messagingState(gw, companyId)).toEqual(before.state);
    expect(await events.since(before.start)).toEqual([]);
  });
});

describe('details keep only the known provider fields', () => {
  it('cloud-style location and interactive reply', async () => {
    const location = nextId();
    const reply = nextId();
    const body = cloudBody([
      {
        id: location,
        from: '4915112345678',
        timestamp: '1749416450',
        type: 'location',
        location: {
          latitude: 1.5,
          longitude: 2.5,
          name: 'Shop',
          address: 'Main St 1',
          url: 'https://x.test',
          injected: { deep: 'x'.repeat(100) },
        },
      },
      {
        id: reply,
        from: '4915112345678',
        timestamp: '1749416451',
        type: 'interactive',
        interactive: {
          type: 'list_reply',
          list_reply: { id: 'opt-1', title: 'Blue', description: 'the blue one', injected: [1, 2, 3] },
        },
      },
    ]);
    expect((await postCloud(gw, cloudChannel, body, appSecret)).status).toBe(200);
    expect(await detailsOf(location)).toEqual({
      location: { latitude: 1.5, longitude: 2.5, name: 'Shop', address: 'Main St 1' },
    });
    expect(await detailsOf(reply)).toEqual({ interactive: { type: 'list_reply', id: 'opt-1', title: 'Blue' } });
  });

  it('cloud-style status errors', async () => {
    // A company of its own whose channel knows its phone-number id, so the gateway sends on it (to
    // the fake provider, which accepts the message under the id the status then names).
    const company = (await gw.request('POST', '/p1/companies', { json: { name: 'Provider Errors Co' } })).body.data
      .external_id as number;
    const created = await gw.request('POST', `/p1/companies/${company}/channels`, {
      json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 't', vendor_channel_id: 'PN-REVIEW' },
    });
    expect(created.status, created.text).toBe(201);
    const channel = created.body.data.external_id as number;
    const secret = (await callbackInfo(gw, channel)).secrets.app_secret!;
    /** A cloud-style body about this channel's number. */
    const aboutChannel = (messages: unknown[], statuses: unknown[]) => {
      const body = JSON.parse(cloudBody(messages, statuses));
      body.entry[0].changes[0].value.metadata = { display_phone_number: '15550001111', phone_number_id: 'PN-REVIEW' };
      return JSON.stringify(body);
    };
    const outgoing = `bmid.REVIEW-FAIL-${nextId()}`;
    const text = nextId();
    expect(
      (
        await postCloud(
          gw,
          channel,
          aboutChannel(
            [{ id: text, from: '4915112345678', timestamp: '1749416450', type: 'text', text: { body: 'x' } }],
            [],
          ),
          secret,
        )
      ).status,
    ).toBe(200);
    const conversationId = (await conversationWith(gw, company, '4915112345678')).id as number;
    provider.script('cloud', {
      status: 200,
      body: { messaging_product: 'chat_a', contacts: [], messages: [{ id: outgoing }] },
    });
    const sent = await gw.request('POST', `/api/p2/conversations/${conversationId}/messages`, {
      json: { company_id: company, text: 'Your order has shipped' },
    });
    expect(sent.status, sent.text).toBe(201);
    await eventually('the message sent', async () => {
      const message = (
        await gw.request(
          'GET',
          `/api/p2/conversations/${conversationId}/messages/${sent.body.message.id}?company_id=${company}`,
        )
      ).body.message;
      return message.status === 'sent' && message.external_id === outgoing;
    });
    const errors = [
      {
        code: 131047,
        title: 'Re-engagement',
        message: 'Too late',
        error_data: { details: 'More than 24 hours', injected: 'x' },
        href: 'https://x.test',
        injected: { a: 1 },
      },
      { title: 'Only a title' },
    ];
    expect(
      (
        await postCloud(
          gw,
          channel,
          aboutChannel([], [{ id: outgoing, status: 'failed', timestamp: '1749416503', errors }]),
          secret,
        )
      ).status,
    ).toBe(200);
    expect(await detailsOf(outgoing, company)).toEqual({
      errors: [
        { code: 131047, title: 'Re-engagement', message: 'Too late', error_data: { details: 'More than 24 hours' } },
        { title: 'Only a title' },
      ],
    });
  });

  it('bot-style location', async () => {
    expect(
      (
        await postBot(
          gw,
          botChannel,
          botBody({ location: { latitude: 3.5, longitude: 4.5, horizontal_accuracy: 10, live_period: 60, name: 7 } }),
          botSecret,
        )
      ).status,
    ).toBe(200);
    expect(await detailsOf(`555:${seq}`)).toEqual({ location: { latitude: 3.5, longitude: 4.5 } });
  });
});
