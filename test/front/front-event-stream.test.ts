// The live event stream through the front, in this process before two real cores (shards 0 and 1 of
// 64 slots): each event of a callback posted through the front arrives while the stream stays open
// (nothing held back until the answer ends), a reconnect with Last-Event-ID resumes through the
// front, and open streams never take the connections the front's other requests need.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { generateApiToken } from '../../src/domain/tokens.js';
import { shardOfId } from '../../src/lib/shards.js';
import { createLogger } from '../../src/log.js';
import { startFront } from '../../src/roles/front-role.js';
import { cloudBody, cloudSignature } from '../helpers/callbacks.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { openSse, type OpenSse } from '../helpers/sse.js';
import { eventually } from '../helpers/wait.js';

const TOKEN = generateApiToken();
const ADMIN = 'admin-token-of-the-front-stream-tests';
let cores: TestGateway[];
let front: { port: number; close(): Promise<void> };
let frontUrl: string;

interface Company {
  companyId: number;
  channelId: number;
  appSecret: string;
}
const companies: Company[] = [];

async function call(
  method: string,
  path: string,
  json?: unknown,
  admin = false,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${frontUrl}${path}`, {
    method,
    headers: {
      ...(admin ? { authorization: `Bearer ${ADMIN}` } : { 'x-private-api-token': TOKEN }),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, body: await response.json() };
}

async function postText(company: Company, id: string): Promise<void> {
  const body = cloudBody([
    { from: '4915100000042', id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: id } },
  ]);
  const response = await fetch(`${frontUrl}/callbacks/chat_a_business/${company.channelId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': cloudSignature(body, company.appSecret) },
    body,
  });
  expect(response.status).toBe(200);
}

const stream = (company: Company, headers: Record<string, string> = {}) =>
  openSse(frontUrl, `/api/p2/companies/${company.companyId}/events/stream`, {
    'x-private-api-token': TOKEN,
    ...headers,
  });

beforeAll(async () => {
  cores = [];
  for (const shard of [0, 1])
    cores.push(
      await startTestGateway({
        GATEWAY_SHARD: String(shard),
        GATEWAY_SHARD_SLOTS: '64',
        GATEWAY_BOOTSTRAP_TOKEN: TOKEN,
        GATEWAY_ADMIN_TOKEN: ADMIN,
      }),
    );
  const config = loadConfig({
    GATEWAY_PORT: '0',
    GATEWAY_SHARD_SLOTS: '64',
    GATEWAY_SHARD_URLS: cores.map((core) => core.baseUrl).join(','),
    GATEWAY_ADMIN_TOKEN: ADMIN,
    // Fewer pooled connections per shard than the streams the test opens on it.
    GATEWAY_FRONT_CONNECTIONS: '2',
  });
  front = await startFront(config, createLogger('warn', new Writable({ write: (_chunk, _encoding, done) => done() })));
  frontUrl = `http://127.0.0.1:${front.port}`;
  for (let i = 0; i < 2; i++) {
    const companyId = (await call('POST', '/p1/companies', { name: `Stream Front ${i}` })).body.data
      .external_id as number;
    const channel = await call('POST', `/p1/companies/${companyId}/channels`, {
      provider: 'chat_a_business',
      hosting_type: 'cloud',
      token: `EAAG-front-${i}`,
    });
    const channelId = channel.body.data.external_id as number;
    const info = await call('GET', `/admin/channels/${channelId}/callback`, undefined, true);
    companies.push({ companyId, channelId, appSecret: info.body.secrets.app_secret as string });
  }
});

afterAll(async () => {
  await front?.close();
  await Promise.all(cores.map((core) => core.close()));
});

describe('the live event stream through the front', () => {
  it('has a company on each shard', () => {
    expect(companies.map((c) => shardOfId(c.companyId, 64)).sort()).toEqual([0, 1]);
  });

  it('delivers each event while the stream stays open, and resumes after Last-Event-ID', async () => {
    for (const company of companies) {
      const open = await stream(company);
      expect(open.status).toBe(200);
      expect(open.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      // One event at a time: each arrives before the next is posted, on the same open answer.
      for (const n of [1, 2, 3]) {
        await postText(company, `wamid.front.${company.companyId}.${n}`);
        const text = `wamid.front.${company.companyId}.${n}`;
        await eventually(`message ${n} arrived`, () =>
          open.messages.some((m) => (m.data.object as { message?: string }).message === text),
        );
      }
      // Still open: the events came as they happened, not with the end of the answer.
      expect(await Promise.race([open.ended.then(() => 'ended'), Promise.resolve('open')])).toBe('open');
      const seen = open.messages.map((m) => m.id);
      expect(open.messages.filter((m) => m.event === 'message.create')).toHaveLength(3);
      open.close();

      const lastButTwo = seen.at(-3)!;
      const resumed = await stream(company, { 'last-event-id': lastButTwo });
      await eventually('the resumed stream caught up', () => resumed.messages.length >= 2);
      expect(resumed.messages.map((m) => m.id)).toEqual(seen.slice(-2));
      resumed.close();
    }
  });

  it('keeps answering other requests while more streams are open on a shard than it pools connections', async () => {
    const open: OpenSse[] = [];
    for (const company of companies) for (let i = 0; i < 4; i++) open.push(await stream(company));
    expect(open.map((s) => s.status)).toEqual(open.map(() => 200));
    for (const company of companies) {
      const answer = await call('GET', `/api/p2/conversations?company_id=${company.companyId}`);
      expect(answer.status).toBe(200);
    }
    await postText(companies[0]!, 'wamid.front.while-open');
    await eventually('every stream of the company got it', () =>
      open.slice(0, 4).every((s) => s.messages.some((m) => m.event === 'message.create')),
    );
    for (const s of open) s.close();
  });
});
