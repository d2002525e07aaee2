import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { shardOfId } from '../../src/lib/shards.js';
import type { TestGateway } from './gateway.js';
import type { GatewayClient } from './gateway-client.js';
import { SHARD_SLOTS } from './test-cluster.js';

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

/**
 * A company through the API on `shard` of a cluster: the front gives new companies to the shards in
 * turn, so companies are created until one lands there (the others stay, unused). On one daemon
 * the first company made.
 */
export async function newCompanyOnShard(
  gw: TestGateway,
  shard: number,
  fields: Record<string, unknown> = {},
): Promise<number> {
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const company = await newCompany(gw, fields);
    if (gw.target === 'single' || shardOfId(company, SHARD_SLOTS) === shard) return company;
  }
  throw new Error(`no company landed on shard ${shard} in 12 tries`);
}

/** A webhook endpoint as the API answers its creation, secret included. */
export interface CreatedEndpoint {
  id: number;
  secret: string;
  [field: string]: unknown;
}

/** A webhook endpoint of `companyId` through the API (`body` as POST .../webhooks takes it). */
export async function newEndpoint(
  gw: TestGateway,
  companyId: number,
  body: Record<string, unknown>,
): Promise<CreatedEndpoint> {
  const res = await gw.request('POST', `/api/p2/companies/${companyId}/webhooks`, { json: body });
  expect(res.status, res.text).toBe(201);
  return res.body.webhook as CreatedEndpoint;
}

/**
 * A webhook endpoint of `companyId` through the API (`body` as POST .../webhooks takes it) whose id
 * is above `floor`. On a cluster endpoint ids count per shard, so a company on another shard holds
 * the same numbers; an isolation test that types one company's endpoint id into the other's
 * requests needs an id the other company has not. Endpoints made at or below `floor` are deleted
 * again once one is above it (deleting the highest would only hand its id out again).
 */
export async function endpointAbove(
  gw: TestGateway,
  companyId: number,
  body: Record<string, unknown>,
  floor: number,
): Promise<CreatedEndpoint> {
  const below: number[] = [];
  let created: CreatedEndpoint | undefined;
  while (created === undefined) {
    const endpoint = await newEndpoint(gw, companyId, body);
    if (endpoint.id > floor) created = endpoint;
    else below.push(endpoint.id);
  }
  for (const id of below) {
    const deleted = await gw.request('DELETE', `/api/p2/companies/${companyId}/webhooks/${id}`);
    expect(deleted.status, deleted.text).toBe(204);
  }
  return created;
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
