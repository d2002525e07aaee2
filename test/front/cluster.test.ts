// A 3-shard cluster started by `gateway cluster` (the code behind `npm run cluster`), on the real
// broker: real cores, workers and front, each a process; the test speaks HTTP to the front (and,
// to see where things landed, to the cores directly).
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterLayout } from '../../src/cli/cluster-command.js';
import { shardOfId } from '../../src/lib/shards.js';
import { startCluster, type TestCluster } from '../helpers/cluster.js';

const TOKEN = `gwk_${randomBytes(16).toString('hex')}`;
const ADMIN = `adm_${randomBytes(16).toString('hex')}`;
const SLOTS = 64;
const FIXTURE = path.resolve('test/fixtures/callbacks/cloud/text.json');
const IMAGE = path.resolve('test/fixtures/image.png');

let cluster: TestCluster;
let layout: ClusterLayout;

interface Answer {
  status: number;
  headers: Headers;
  text: string;

  body: any;
}

async function call(
  base: string,
  method: string,
  urlPath: string,
  options: { json?: unknown; body?: RequestInit['body']; headers?: Record<string, string>; admin?: boolean } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    ...(options.admin ? { authorization: `Bearer ${ADMIN}` } : { 'x-private-api-token': TOKEN }),
    ...options.headers,
  };
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${urlPath}`, {
    method,
    headers,
    body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
    duplex: 'half',
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}
const front = (method: string, urlPath: string, options?: Parameters<typeof call>[3]) =>
  call(layout.front.url, method, urlPath, options);

function expectErrorShape(answer: Answer, status: number, code: string): void {
  expect(answer.status, answer.text).toBe(status);
  const errors = (answer.body as { errors: Record<string, unknown>[] }).errors;
  expect(errors.length).toBeGreaterThan(0);
  for (const entry of errors) {
    expect(Object.keys(entry).sort().join(',')).toMatch(/^code,detail,(source,)?status,title$/);
    expect(entry).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String) });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  cluster = await startCluster('front-test', { GATEWAY_BOOTSTRAP_TOKEN: TOKEN, GATEWAY_ADMIN_TOKEN: ADMIN });
  layout = cluster.layout;
  // The front's /healthz is 200 once every shard answers its own.
  const health = await front('GET', '/healthz');
  expect(health.status, health.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

const companies: number[] = [];
const shardOf = (id: number) => shardOfId(id, SLOTS);

describe('a 3-shard cluster behind the front', () => {
  it('spreads new companies over the shards; each id carries the shard that stores it', async () => {
    for (let i = 0; i < 6; i++) {
      const created = await front('POST', '/p1/companies', { json: { name: `Sharded Co ${i}` } });
      expect(created.status, created.text).toBe(201);
      companies.push(created.body.data.external_id as number);
    }
    expect(new Set(companies).size).toBe(companies.length);
    expect(new Set(companies.map(shardOf))).toEqual(new Set([0, 1, 2]));
    // Each core lists exactly the companies whose ids name its shard.
    expect(layout.cores).toHaveLength(3);
    for (const core of layout.cores) {
      const own = await call(core.url, 'GET', '/p1/companies?per=100');
      expect(own.status, own.text).toBe(200);
      const ids = (own.body.data.companies as { external_id: number }[]).map((c) => c.external_id);
      expect(ids.sort((a, b) => a - b)).toEqual(
        companies.filter((id) => shardOf(id) === core.shard).sort((a, b) => a - b),
      );
    }
  });

  it('merges GET /p1/companies from every shard in id order, its next_page valid across shards', async () => {
    const seen: number[] = [];
    let from = '';
    for (let page = 0; page < 10; page++) {
      const list = await front('GET', `/p1/companies?per=4${from === '' ? '' : `&from=${from}`}`);
      expect(list.status, list.text).toBe(200);
      seen.push(...(list.body.data.companies as { external_id: number }[]).map((c) => c.external_id));
      from = list.body.data.next_page as string;
      if (from === '') break;
    }
    expect(seen).toEqual([...companies].sort((a, b) => a - b));
  });

  it('sends a request for a company to its shard', async () => {
    for (const id of companies) {
      const webhook = await front('POST', `/api/p2/companies/${id}/webhooks`, {
        json: { url: 'https://hooks.example.com/in', active: false },
      });
      expect(webhook.status, webhook.text).toBe(201);
      const owner = layout.cores[shardOf(id)]!;
      const there = await call(owner.url, 'GET', `/api/p2/companies/${id}/webhooks`);
      expect(there.status, there.text).toBe(200);
      // The company_id of a v2 query routes the same way.
      const conversations = await front('GET', `/api/p2/conversations?company_id=${id}`);
      expect(conversations.status, conversations.text).toBe(200);
    }
  });

  it('passes a callback body byte for byte (its signature is over the raw body)', async () => {
    const company = companies[1]!;
    const channel = await front('POST', `/p1/companies/${company}/channels`, {
      json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 'EAAG-cloud-token' },
    });
    expect(channel.status, channel.text).toBe(201);
    const channelId = channel.body.data.external_id as number;
    expect(shardOf(channelId)).toBe(shardOf(company));
    const info = await front('GET', `/admin/channels/${channelId}/callback`, { admin: true });
    expect(info.status, info.text).toBe(200);
    // Spacing and escapes a re-serialized body would lose, so a changed byte breaks the signature.
    const body = `  ${JSON.stringify(JSON.parse(fs.readFileSync(FIXTURE, 'utf8')), null, 3).replace('Does it come', 'Does \\u0069t come')}\n\n`;
    const signature = `sha256=${createHmac('sha256', info.body.secrets.app_secret as string)
      .update(body)
      .digest('hex')}`;
    const callback = await front('POST', `/callbacks/chat_a_business/${channelId}`, {
      body,
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': signature,
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
    });
    expect(callback.status, callback.text).toBe(200);
    const wrong = await front('POST', `/callbacks/chat_a_business/${channelId}`, {
      body: `${body} `,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
    });
    expectErrorShape(wrong, 401, 'unauthorized');
  });

  it('streams a multipart upload through to the shard of its company_id, and serves the file back', async () => {
    const image = fs.readFileSync(IMAGE);
    for (const [company, companyFirst] of [
      [companies[2]!, true],
      [companies[0]!, false],
    ] as const) {
      const form = new FormData();
      if (companyFirst) form.append('company_id', String(company));
      form.append('file', new Blob([image], { type: 'image/png' }), 'image.png');
      if (!companyFirst) form.append('company_id', String(company));
      const uploaded = await front('POST', '/api/p2/attachments', { body: form });
      expect(uploaded.status, uploaded.text).toBe(201);
      const url = new URL(uploaded.body.attachment.attachment_url as string);
      expect(url.origin).toBe(layout.front.url);
      // The file's key names no shard: the front asks every shard and streams the one that has it.
      const file = await fetch(url);
      expect(file.status).toBe(200);
      expect(Buffer.from(await file.arrayBuffer()).equals(image)).toBe(true);
    }
  });

  it('answers bad input in the error shape', async () => {
    expectErrorShape(await front('GET', '/api/p2/conversations?company_id=abc'), 422, 'validation_failed');
    expectErrorShape(await front('GET', '/p1/companies/99999999999999999999/channels'), 404, 'not_found');
    expectErrorShape(
      await front('POST', '/api/p2/messages', {
        body: '{"company_id":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'bad_request',
    );
    expectErrorShape(await front('GET', '/admin/deliveries?cursor=bm9wZQ', { admin: true }), 422, 'validation_failed');
    expectErrorShape(
      await front('GET', '/p1/companies', { headers: { 'x-private-api-token': 'gwk_nope' } }),
      401,
      'unauthorized',
    );
  });

  it('answers 503 with Retry-After for a shard whose core is killed, while the other shards answer', async () => {
    const victim = layout.cores[1]!;
    process.kill(victim.pid, 'SIGKILL');
    await expect.poll(() => alive(victim.pid), { timeout: 10_000 }).toBe(false);
    const lost = companies.find((id) => shardOf(id) === 1)!;
    const kept = companies.filter((id) => shardOf(id) !== 1);
    const down = await front('GET', `/api/p2/conversations?company_id=${lost}`);
    expectErrorShape(down, 503, 'service_unavailable');
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
    // Held down now: answered at once, without a connection attempt.
    const started = performance.now();
    expectErrorShape(
      await front('POST', `/api/p2/companies/${lost}/webhooks`, { json: { url: 'https://hooks.example.com/x' } }),
      503,
      'service_unavailable',
    );
    expect(performance.now() - started).toBeLessThan(500);
    expect(new Set(kept.map(shardOf))).toEqual(new Set([0, 2]));
    for (const id of kept) {
      const answer = await front('GET', `/api/p2/conversations?company_id=${id}`);
      expect(answer.status, answer.text).toBe(200);
    }
    // New companies go to the live shards.
    const created = await front('POST', '/p1/companies', { json: { name: 'While one is down' } });
    expect(created.status, created.text).toBe(201);
    expect(shardOf(created.body.data.external_id as number)).not.toBe(1);
    // A merged list would be missing a shard's part: 503 rather than a shorter list.
    expectErrorShape(await front('GET', '/p1/companies'), 503, 'service_unavailable');
    const health = await front('GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.body.down_shards).toEqual([1]);
  });

  it('stops every process on SIGTERM', async () => {
    const pids = [layout.front.pid, ...layout.cores.map((c) => c.pid), ...layout.workers.map((w) => w.pid)];
    cluster.child.kill('SIGTERM');
    expect(await cluster.exited).toBe(0);
    expect(pids.filter(alive)).toEqual([]);
  }, 60_000);
});
