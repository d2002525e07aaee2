// Group chats of the providers besides chat_a: a bot (chat_b) supergroup received over the bot API and
// replied into at its chat_id, and a provider (social_a_direct) whose groups the gateway receives but
// refuses to send into (422 wrong_provider).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackInfo, postBot, rowCounts } from '../helpers/callbacks.js';
import type { FakeProvider } from '../helpers/fake-provider.js';
import { expectErrorShape, type TestGateway } from '../helpers/gateway.js';
import type { Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';
import { groupMessage, groupsHelpers, JONAS, startGroupsGateway, type Hook } from './groups-fixtures.js';

let gw: TestGateway;
let fake: FakeProvider;
let receiver: Receiver;
let close: () => Promise<void>;
const secrets: string[] = [];

beforeAll(async () => {
  ({ gw, fake, receiver, close } = await startGroupsGateway(() => secrets));
});
afterAll(() => close?.());

const { store, newReceivingCompany, connectorChannel } = groupsHelpers(() => ({ gw, fake, receiver }), secrets);

describe('bot groups (chat_b)', () => {
  it('a supergroup with two members is one conversation with both; a reply goes to the group chat_id', async () => {
    const company = await newReceivingCompany();
    const created = await gw.request('POST', `/p1/companies/${company.id}/channels`, {
      json: { provider: 'chat_b', token: '7777:group-bot' },
    });
    expect(created.status).toBe(201);
    const channel = created.body.data.external_id as number;
    const secretToken = (await callbackInfo(gw, channel)).secrets.secret_token!;
    const update = (updateId: number, messageId: number, from: Record<string, unknown>, text: string) =>
      JSON.stringify({
        update_id: updateId,
        message: {
          message_id: messageId,
          from: { is_bot: false, ...from },
          chat: { id: -1001234500000, title: 'Acme team', type: 'supergroup' },
          date: 1749416600 + messageId,
          text,
        },
      });
    expect(
      (
        await postBot(
          gw,
          channel,
          update(1, 10, { id: 501, first_name: 'Olga', username: 'olga_p' }, 'Hi'),
          secretToken,
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await postBot(
          gw,
          channel,
          update(2, 11, { id: 502, first_name: 'Ivan', last_name: 'Petrov' }, 'Hey'),
          secretToken,
        )
      ).status,
    ).toBe(200);

    const list = await gw.request('GET', `/api/p2/conversations?company_id=${company.id}`);
    expect(list.body.conversations).toHaveLength(1);
    const conversation = list.body.conversations[0] as Hook;
    expect(conversation).toMatchObject({ sender_name: 'Acme team', sender_external_id: '-1001234500000', group: true });
    expect(conversation.participants.map((p: Hook) => [p.name, p.external_id, p.external_public_id])).toEqual([
      ['Olga', '501', '@olga_p'],
      ['Ivan Petrov', '502', '502'],
    ]);
    const messages = (
      await gw.request('GET', `/api/p2/conversations/${conversation.id}/messages?company_id=${company.id}`)
    ).body.messages as Hook[];
    expect(messages.map((m) => m.contact_id)).toEqual(conversation.participants.map((p: Hook) => p.id));

    const sent = await gw.request('POST', `/api/p2/conversations/${conversation.id}/messages`, {
      json: { company_id: company.id, text: 'Hello team' },
    });
    expect(sent.status).toBe(201);
    await eventually(
      'sendMessage at the bot API',
      () => fake.callsOf('bot', '/bot7777:group-bot/sendMessage').length === 1,
    );
    expect(fake.callsOf('bot', '/bot7777:group-bot/sendMessage')[0]!.body).toMatchObject({
      chat_id: '-1001234500000',
      text: 'Hello team',
    });
  });
});

describe('a provider whose groups the gateway does not send into', () => {
  it('answers 422 wrong_provider naming the provider and the operation, and stores nothing', async () => {
    const company = await newReceivingCompany();
    const channel = await connectorChannel(company.id, 'social_a_direct', { token: 'vk-token' });
    expect(await fake.connectorCallback(channel, groupMessage('VK-1', JONAS, 'Привет', 1749416700))).toBe(200);
    const conversation = (await gw.request('GET', `/api/p2/conversations?company_id=${company.id}`)).body
      .conversations[0] as Hook;
    expect(conversation).toMatchObject({ provider: 'social_a_direct', group: true });
    const before = rowCounts(store());
    const outbound = fake.calls.length;
    const refused = await gw.request('POST', `/api/p2/conversations/${conversation.id}/messages`, {
      json: { company_id: company.id, text: 'Hello group' },
    });
    const [error] = expectErrorShape(refused, 422, 'wrong_provider');
    expect(error!.detail).toContain('social_a_direct group conversations');
    expect(error!.detail).toContain('sent into');
    expect(rowCounts(store())).toEqual(before);
    expect(fake.calls.length).toBe(outbound);
  });
});
