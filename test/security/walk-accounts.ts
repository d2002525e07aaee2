// The resources the cross-account walk aims at: one of every kind an operation's path or input can
// name, given to an account through the API wherever the API makes them (test/security/cross-account-walk.test.ts).
import fs from 'node:fs';
import { expect } from 'vitest';
import { digestApiToken } from '../../src/domain/tokens.js';
import type { FakeProvider } from '../helpers/fake-provider.js';
import { type TestGateway, type TestResponse } from '../helpers/gateway.js';
import type { Receiver } from '../helpers/receiver.js';
import { seedConversation } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

/** A portal session of one company: its cookie, its CSRF token and the raw session token. */
export interface PortalSession {
  cookie: string;
  csrf: string;
  token: string;
}

/** One account and an id of every kind of its resources, by the names the walk resolves parameters to. */
export interface AccountResources {
  label: 'A' | 'B';
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

/**
 * Gives the account of `token` one resource of every kind through the API (incoming messages and
 * templates come from providers, so they are written to the store as callbacks and syncs would).
 */
export async function giveResources(
  gw: TestGateway,
  fake: FakeProvider,
  receiver: Receiver,
  label: 'A' | 'B',
  token: string,
): Promise<AccountResources> {
  const marker = `walk-marker-${label}-${label === 'A' ? 'alpha' : 'bravo'}`;
  const call = (method: string, path: string, json?: unknown) => gw.request(method, path, { token, json });

  const companyRes = await call('POST', '/p1/companies', { name: `${marker} company`, webhook_url: receiver.url });
  const company = expectStatus(companyRes, 201, 'company').body.data.external_id as number;

  const channelRes = await call('POST', `/p1/companies/${company}/channels`, { provider: 'chat_a' });
  const channel = expectStatus(channelRes, 201, 'channel').body.data.external_id as number;
  expect(await fake.connectorCallback(channel, { type: 'state', state: 'enabled' })).toBe(200);

  const authRes = await call('POST', `/api/p2/companies/${company}/auths`, {
    provider: 'chat_a_business',
    hosting_type: 'cloud',
    token: `${marker}-cloud-token`,
    subtype: 'unlim',
  });
  const auth = expectStatus(authRes, 201, 'auth').body.auth.id as number;

  const webhookRes = await call('POST', `/api/p2/companies/${company}/webhooks`, {
    url: `${receiver.url}?${marker}`,
    active: true,
  });
  const webhook = expectStatus(webhookRes, 201, 'webhook').body.webhook.id as number;

  const jobRes = await gw.request('POST', `/p1/companies/${company}/channels/${channel}/conversations`, {
    token,
    form: `phone=7925000000${label === 'A' ? 1 : 2}&message=${marker}`,
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

  const seeded = seedConversation(
    gw,
    { companyId: company, channelId: channel },
    { sender: label === 'A' ? '79250001111' : '79250002222', externalTimes: [Date.now() - 60_000] },
  );
  const template = `${marker}-template`;
  gw.store.transaction(() =>
    gw.store.templates.insert({
      company_id: company,
      channel_id: auth,
      name: `${marker} template`,
      body: 'Hello {{1}}',
      biz_template_id: template,
      language: 'en',
      substitutions_count: 1,
      header_content_type: null,
      header: null,
      namespace: null,
      position: 0,
      created_at: Date.now(),
    }),
  );

  await eventually('a delivery of the company', async () => {
    const list = await gw.admin('GET', `/admin/deliveries?company_id=${company}&endpoint_id=${webhook}`);
    return list.body.deliveries.length > 0;
  });
  const delivery = (await gw.admin('GET', `/admin/deliveries?company_id=${company}&endpoint_id=${webhook}`)).body
    .deliveries[0].id as string;
  const replay = await gw.admin('POST', '/admin/replays', { company_id: company, status: 'failed' });
  expect(replay.status, JSON.stringify(replay.body)).toBe(202);

  const tokenRow = gw.store.db
    .prepare<[string], { id: number }>('SELECT id FROM api_tokens WHERE token_sha256 = ?')
    .get(digestApiToken(token))!;
  const cloud = await gw.admin('GET', `/admin/channels/${auth}/callback`);
  const connector = await gw.admin('GET', `/admin/channels/${channel}/callback`);
  expect([cloud.status, connector.status], JSON.stringify([cloud.body, connector.body])).toEqual([200, 200]);

  return {
    label,
    token,
    tokenId: tokenRow.id,
    company,
    channel,
    auth,
    conversation: seeded.conversationId,
    contact: seeded.contactId,
    message: seeded.messageIds[0]!,
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
