import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import type { Store } from '../../src/store/store.js';
import { emittedEvents, newEvents } from './events.js';
import { ADMIN_TOKEN, type TestGateway, type TestResponse } from './gateway.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'callbacks');

/** A recorded payload, as the exact bytes the provider sent. */
export function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8');
}

export interface CallbackInfo {
  url: string;
  provider: string;
  family: string;
  secrets: Record<string, string | null>;
}

/** What the operator sees at GET /admin/channels/<id>/callback. */
export async function callbackInfo(gw: TestGateway, channelId: number): Promise<CallbackInfo> {
  const res = await gw.request('GET', `/admin/channels/${channelId}/callback`, {
    token: null,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  if (res.status !== 200) throw new Error(`callback info of ${channelId}: ${res.status} ${res.text}`);
  return res.body as CallbackInfo;
}

export function cloudSignature(body: string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
}

/** Posts a cloud-style callback signed with the app secret (or with the given header). */
export function postCloud(
  gw: TestGateway,
  channelId: number,
  body: string,
  appSecret: string,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return gw.request('POST', `/callbacks/chat_a_business/${channelId}`, {
    token: null,
    body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': cloudSignature(body, appSecret), ...headers },
  });
}

export function postBot(
  gw: TestGateway,
  channelId: number,
  body: string,
  secretToken: string | null,
): Promise<TestResponse> {
  return gw.request('POST', `/callbacks/chat_b/${channelId}`, {
    token: null,
    body,
    headers: {
      'content-type': 'application/json',
      ...(secretToken === null ? {} : { 'x-bot-api-secret-token': secretToken }),
    },
  });
}

/** Standard Webhooks headers for a body, signed by the standardwebhooks package (not our code). */
export function connectorHeaders(
  body: string,
  secret: string,
  id = `msg_${randomUUID()}`,
  at = new Date(),
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

export function postConnector(
  gw: TestGateway,
  provider: string,
  channelId: number,
  body: string,
  secret: string,
  id?: string,
): Promise<TestResponse> {
  return gw.request('POST', `/callbacks/${provider}/${channelId}`, {
    token: null,
    body,
    headers: connectorHeaders(body, secret, id),
  });
}

/** Events after `before`, each validated against its schema (v2 envelopes, v1 channel payloads, job results): test/helpers/events.ts. */
export const checkedEvents = newEvents;

/**
 * Row counts of the tables a callback writes, and the events emitted (published in their commit,
 * they leave no outbox row): proof that a refused one left nothing.
 */
export function rowCounts(store: Store): {
  contacts: number;
  conversations: number;
  messages: number;
  attachments: number;
  events: number;
  callback_receipts: number;
} {
  const count = (table: string) => (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return {
    contacts: count('contacts'),
    conversations: count('conversations'),
    messages: count('messages'),
    attachments: count('attachments'),
    events: emittedEvents(store).length,
    callback_receipts: count('callback_receipts'),
  };
}

/** An outgoing message with a provider id, as the sender will leave it once the provider accepted it. */
export function seedOutgoing(
  store: Store,
  conversationId: number,
  companyId: number,
  externalId: string,
  status: 'created' | 'sent' = 'sent',
): number {
  return store.transaction(() => {
    const conversation = store.conversations.find(companyId, conversationId)!;
    const row = store.messages.insert({
      companyId,
      channelId: conversation.channel_id,
      conversationId,
      contactId: conversation.contact_id,
      externalId,
      repliedToId: null,
      income: false,
      status,
      text: 'Your order has shipped',
      details: null,
      sendToCrm: true,
    });
    return row.id;
  });
}

/** Posts exact bytes (which need not be valid UTF-8), unlike gw.request which sends text. */
export function postBytes(
  gw: TestGateway,
  pathAndQuery: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${gw.baseUrl}${pathAndQuery}`,
      { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body: parsed });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** The Message of a message event's object: without the `contact` and `conversation` the event nests. */
export function messageOfEvent(object: unknown): Record<string, unknown> {
  const { contact: _contact, conversation: _conversation, ...message } = object as Record<string, unknown>;
  return message;
}

export interface CallbackChannels {
  companyId: number;
  /** A bot-style channel and its secret token. */
  botChannel: number;
  botSecret: string;
  /** A cloud-style channel, its app secret and its verify token. */
  cloudChannel: number;
  appSecret: string;
  verifyToken: string;
  /** A connector channel (created through v2) and its signing secret. */
  connectorChannel: number;
  connectorSecret: string;
}

/** A company with a channel of each callback family, created through the API; the gateway needs GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN. */
export async function createCallbackChannels(gw: TestGateway, companyName: string): Promise<CallbackChannels> {
  const companyId = (await gw.request('POST', '/p1/companies', { json: { name: companyName } })).body.data
    .external_id as number;
  const create = async (json: Record<string, unknown>) =>
    (await gw.request('POST', `/p1/companies/${companyId}/channels`, { json })).body.data.external_id as number;
  const botChannel = await create({ provider: 'chat_b', token: '123456:bot-token' });
  const cloudChannel = await create({ provider: 'chat_a_business', hosting_type: 'cloud', token: 'EAAG-cloud-token' });
  const connectorChannel = (
    await gw.request('POST', `/api/p2/companies/${companyId}/auths`, { json: { provider: 'chat_d' } })
  ).body.auth.id as number;
  const cloud = await callbackInfo(gw, cloudChannel);
  return {
    companyId,
    botChannel,
    botSecret: (await callbackInfo(gw, botChannel)).secrets.secret_token!,
    cloudChannel,
    appSecret: cloud.secrets.app_secret!,
    verifyToken: cloud.secrets.verify_token!,
    connectorChannel,
    connectorSecret: (await callbackInfo(gw, connectorChannel)).secrets.signing_secret!,
  };
}

/** A cloud-style callback body carrying `messages` and `statuses` from one contact. */
export function cloudBody(messages: unknown[] = [], statuses: unknown[] = []): string {
  return JSON.stringify({
    object: 'x',
    entry: [
      {
        id: '1',
        changes: [
          {
            field: 'messages',
            value: { contacts: [{ wa_id: '4915112345678', profile: { name: 'Lena' } }], messages, statuses },
          },
        ],
      },
    ],
  });
}
