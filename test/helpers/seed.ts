import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TestGateway } from './gateway.js';
import type { GatewayClient } from './gateway-client.js';

export interface Seeded {
  companyId: number;
  channelId: number;
  conversationId: number;
  contactId: number;
  messageIds: number[];
}

/**
 * A company through the API, named uniquely unless `fields` names it, created with `token` (the
 * client's own unless given); answers its id.
 */
export async function newCompany(
  client: GatewayClient,
  fields: Record<string, unknown> = {},
  token?: string,
): Promise<number> {
  const res = await client.request('POST', '/p1/companies', {
    json: { name: `Company ${randomUUID()}`, ...fields },
    ...(token === undefined ? {} : { token }),
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.external_id as number;
}

/** A company through the API, with a (token-enabled) chat_b channel. */
export async function seedCompany(
  gw: TestGateway,
  token = gw.token,
  name = 'Seeded Co',
): Promise<{ companyId: number; channelId: number }> {
  const company = await gw.request('POST', '/p1/companies', { token, json: { name } });
  const companyId = company.body.data.external_id as number;
  const channel = await gw.request('POST', `/p1/companies/${companyId}/channels`, {
    token,
    json: { provider: 'chat_b', token: `bot-${companyId}` },
  });
  return { companyId, channelId: channel.body.data.external_id as number };
}

/**
 * A conversation with incoming messages, written through the store as the provider callbacks will
 * write them. `externalTimes` are the provider's times (ms) of the messages, in insertion order.
 */
export function seedConversation(
  gw: TestGateway,
  target: { companyId: number; channelId: number },
  options: { sender?: string; externalTimes?: number[] } = {},
): Seeded {
  const store = gw.gateway.store;
  const sender = options.sender ?? '555000111';
  return store.transaction(() => {
    const { contact } = store.contacts.findOrCreate({
      companyId: target.companyId,
      channelId: target.channelId,
      externalId: sender,
      externalPublicId: `@user${sender}`,
      name: `User ${sender}`,
      phone: null,
    });
    const { conversation } = store.conversations.findOrCreate(target.companyId, target.channelId, contact.id);
    const messageIds = (options.externalTimes ?? []).map(
      (time, i) =>
        store.messages.insert({
          companyId: target.companyId,
          channelId: target.channelId,
          conversationId: conversation.id,
          contactId: contact.id,
          externalId: `ext-${sender}-${i}`,
          repliedToId: null,
          income: true,
          status: 'created',
          text: `incoming ${i}`,
          details: null,
          sendToCrm: true,
          externalCreatedAt: time,
        }).id,
    );
    return { ...target, conversationId: conversation.id, contactId: contact.id, messageIds };
  });
}
