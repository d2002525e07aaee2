// The resources the cross-account walk aims at: one of every kind an operation's path or input can
// name, given to an account through HTTP (test/security/cross-account-walk.test.ts).
import fs from 'node:fs';
import { expect } from 'vitest';
import { shardOfId } from '../../src/lib/shards.js';
import type { FakeProvider } from '../helpers/fake-provider.js';
import { type TestGateway, type TestResponse } from '../helpers/gateway.js';
import type { Receiver } from '../helpers/receiver.js';
import { SHARD_SLOTS } from '../helpers/test-cluster.js';
import { eventually } from '../helpers/wait.js';

/** A portal session of one company: its cookie, its CSRF token and the raw session token. */
export interface PortalSession {
  cookie: string;
  csrf: string;
  token: string;
}

/** One account and an id of every kind of its resources, by the names the walk resolves parameters to. */
/** The walk's accounts: A and B; on a cluster also C, on A's shard. */
export const LABELS = ['A', 'B', 'C'] as const;
export type AccountLabel = (typeof LABELS)[number];
const MARKER_WORDS: Record<AccountLabel, string> = { A: 'alpha', B: 'bravo', C: 'charlie' };

export interface AccountResources {
  label: AccountLabel;
  token: string;
  tokenId: number;
  /** The account's first company: every other resource belongs to it. */
  company: number;
  /** A v1 channel (chat_a, connected through the fake connector). */
  channel: number;
  /** A v2 auth (chat_a_business, by token). */
  auth: number;
  conversation: number;
  /** The conversation's contact (its erasure is DELETE .../contacts/<id>). */
  contact: number;
  message: number;
  attachment: number;
  storageKey: string;
  fileName: string;
  /** A business template's biz_template_id. */
  template: string;
  /** A v2 webhook endpoint (the company's webhook_url is another one). */
  webhook: number;
  job: number;
  delivery: string;
  replayTask: string;
  portal: PortalSession;
  /** The handshake secret of the auth's callbacks (its verify token). */
  verifyToken: string;
  /** The secret the channel's connector signs its callbacks with. */
  connectorSecret: string;
  /** The app secret the auth's cloud-style callbacks are signed with. */
  cloudSecret: string;
  /** Text found in the account's answers only: an answer to the other account must never carry it. */
  marker: string;
}

/** Fails with the answer when a setup step does not answer `status`. */
function expectStatus(res: TestResponse, status: number, what: string): TestResponse {
  expect(res.status, `${what}: ${res.text}`).toBe(status);
  return res;
}

/** Where and as whom an account is set up. */
export interface AccountPlacement {
  label: AccountLabel;
  token: string;
  /** The account's name, as GET /admin/tokens lists it. */
  accountName: string;
  /** On a cluster, the shard its company must land on (companies are created until one does). */
  shard?: number;
}

/**
 * Gives the account of `token` one resource of every kind through HTTP alone (so it holds against
 * one daemon and a cluster): incoming messages through its connector's signed callback, templates
 * through the sync from the fake provider.
 */
export async function giveResources(
  gw: TestGateway,
  fake: FakeProvider,
  receiver: Receiver,
  placement: AccountPlacement,
): Promise<AccountResources> {
  const { label, token } = placement;
  const marker = `walk-marker-${label}-${MARKER_WORDS[label]}`;
  const call = (method: string, path: string, json?: unknown) => gw.request(method, path, { token, json });

  const company = await companyOnShard(gw, token, marker, receiver, placement.shard);

  const channelRes = await call('POST', `/p1/companies/${company}/channels`, { provider: 'chat_a' });
  const channel = expectStatus(channelRes, 201, 'channel').body.data.external_id as number;
  expect(await fake.connectorCallback(channel, { type: 'state', state: 'enabled' })).toBe(200);

  // The auth syncs its templates from the provider when it is created: this account's one.
  const template = `${marker}-template`;
  fake.templates = [
    {
      id: template,
      name: `${marker} template`,
      language: 'en',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Hello {{1}}' }],
    },
  ];
  const authRes = await call('POST', `/api/p2/companies/${company}/auths`, {
    provider: 'chat_a_business',
    hosting_type: 'cloud',
    token: `${marker}-cloud-token`,
    subtype: 'unlim',
    vendor_client_id: `${marker}-business-account`,
  });
  const auth = expectStatus(authRes, 201, 'auth').body.auth.id as number;
  await eventually('the template synced', async () => {
    const list = await call('GET', `/api/p2/biz_templates?company_ids[]=${company}`);
    return expectStatus(list, 200, 'templates').body.biz_templates.some(
      (t: { biz_template_id: string }) => t.biz_template_id === template,
    );
  });

  const webhookRes = await call('POST', `/api/p2/companies/${company}/webhooks`, {
    url: `${receiver.url}?${marker}`,
    active: true,
  });
  const webhook = expectStatus(webhookRes, 201, 'webhook').body.webhook.id as number;

  const jobRes = await gw.request('POST', `/p1/companies/${company}/channels/${channel}/conversations`, {
    token,
    form: `phone=7925000000${LABELS.indexOf(label) + 1}&message=${marker}`,
  });
  const job = expectStatus(jobRes, 201, 'v1 job').body.data.id as number;

  // Distinct names: a file name of the other account must not open this one's file with its key.
  const fileName = `${label.toLowerCase()}-walk.png`;
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync('test/fixtures/image.png')], { type: 'image/png' }), fileName);
  const upload = await fetch(`${gw.baseUrl}/api/p2/companies/${company}/attachments`, {
    method: 'POST',
    body: form,
    headers: { 'x-private-api-token': token },
  });
  const uploaded = (await upload.json()) as { attachment: { id: number; attachment_url: string } };
  expect(upload.status, JSON.stringify(uploaded)).toBe(201);
  const [storageKey] = new URL(uploaded.attachment.attachment_url).pathname.split('/').slice(2);

  const incoming = await receiveMessage(gw, fake, { token, company, channel, marker, label });

  await eventually('a delivery of the company', async () => {
    const list = await gw.admin('GET', `/admin/deliveries?company_id=${company}&endpoint_id=${webhook}`);
    return list.body.deliveries.length > 0;
  });
  const delivery = (await gw.admin('GET', `/admin/deliveries?company_id=${company}&endpoint_id=${webhook}`)).body
    .deliveries[0].id as string;
  const replay = await gw.admin('POST', '/admin/replays', { company_id: company, status: 'failed' });
  expect(replay.status, JSON.stringify(replay.body)).toBe(202);

  const tokens = (await gw.admin('GET', '/admin/tokens')).body.tokens as { id: number; account_name: string }[];
  const own = tokens.filter((t) => t.account_name === placement.accountName);
  expect(own, JSON.stringify(tokens)).toHaveLength(1);
  const cloud = await gw.admin('GET', `/admin/channels/${auth}/callback`);
  const connector = await gw.admin('GET', `/admin/channels/${channel}/callback`);
  expect([cloud.status, connector.status], JSON.stringify([cloud.body, connector.body])).toEqual([200, 200]);

  return {
    label,
    token,
    tokenId: own[0]!.id,
    company,
    channel,
    auth,
    ...incoming,
    attachment: uploaded.attachment.id,
    storageKey: storageKey!,
    fileName,
    template,
    webhook,
    job,
    delivery,
    replayTask: replay.body.task.id as string,
    portal: await openPortal(gw, token, company),
    verifyToken: cloud.body.secrets.verify_token as string,
    connectorSecret: connector.body.secrets.signing_secret as string,
    cloudSecret: cloud.body.secrets.app_secret as string,
    marker,
  };
}

/**
 * A company of the account (the walk's marker in its name, its webhook_url the receiver), on
 * `shard` when the gateway is a cluster. The tries that land elsewhere get no webhook_url, so
 * they add no endpoint to another shard's count of ids.
 */
async function companyOnShard(
  gw: TestGateway,
  token: string,
  marker: string,
  receiver: Receiver,
  shard: number | undefined,
): Promise<number> {
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const res = await gw.request('POST', '/p1/companies', { token, json: { name: `${marker} company` } });
    const company = expectStatus(res, 201, 'company').body.data.external_id as number;
    if (gw.target === 'single' || shard === undefined || shardOfId(company, SHARD_SLOTS) === shard) {
      const update = { name: `${marker} company`, webhook_url: receiver.url };
      expectStatus(await gw.request('PUT', `/p1/companies/${company}`, { token, json: update }), 200, 'webhook_url');
      return company;
    }
  }
  throw new Error(`no company of ${marker} landed on shard ${shard} in 12 tries`);
}

/** A message from a contact, as the channel's connector brings it: its conversation, contact and message ids. */
async function receiveMessage(
  gw: TestGateway,
  fake: FakeProvider,
  target: { token: string; company: number; channel: number; marker: string; label: AccountLabel },
): Promise<{ conversation: number; contact: number; message: number }> {
  const sender = `7925000${LABELS.indexOf(target.label) + 1}111`;
  const externalId = `${target.marker}-incoming`;
  const status = await fake.connectorCallback(target.channel, {
    type: 'message',
    id: externalId,
    chat: { id: sender, name: `User ${sender}`, phone: `+${sender}` },
    timestamp: Math.floor(Date.now() / 1000) - 60,
    text: `incoming ${target.marker}`,
  });
  expect(status).toBe(200);
  const get = async (path: string) => expectStatus(await gw.request('GET', path, { token: target.token }), 200, path);
  const conversations = (await get(`/api/p2/conversations?company_id=${target.company}&per_page=100`)).body
    .conversations as { id: number; sender_external_id: string }[];
  const conversation = conversations.find((c) => c.sender_external_id === sender);
  expect(conversation, JSON.stringify(conversations)).toBeDefined();
  const messages = (
    await get(`/api/p2/conversations/${conversation!.id}/messages?company_id=${target.company}&per_page=100`)
  ).body.messages as { id: number; external_id: string; contact_id: number }[];
  const message = messages.find((m) => m.external_id === externalId);
  expect(message, JSON.stringify(messages)).toBeDefined();
  return { conversation: conversation!.id, contact: message!.contact_id, message: message!.id };
}

/** Asks for a portal link with the account's token and opens its session. */
async function openPortal(gw: TestGateway, token: string, company: number): Promise<PortalSession> {
  const link = await gw.request('POST', `/api/p2/companies/${company}/portal_sessions`, { token });
  expectStatus(link, 201, 'portal link');
  const linkToken = new URL(link.body.portal_session.url as string).hash.slice(1);
  const res = await gw.request('POST', '/portal/session', { token: null, json: { token: linkToken } });
  expectStatus(res, 201, 'portal session');
  const sessionToken = /gw_portal=([^;]+)/.exec(String(res.headers['set-cookie']))![1]!;
  return { cookie: `gw_portal=${sessionToken}`, csrf: res.body.session.csrf_token as string, token: sessionToken };
}
