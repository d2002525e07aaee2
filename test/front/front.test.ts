// The front in this process before two real cores (each a full gateway on a store of its own, shard
// 0 and shard 1 of 64 slots): what it answers to generated input, the merged v2 lists, and a portal
// session's request asked of every shard.
import http from 'node:http';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { generateApiToken } from '../../src/domain/tokens.js';
import { shardOfId } from '../../src/lib/shards.js';
import { createLogger } from '../../src/log.js';
import { startFront } from '../../src/roles/front-role.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const TOKEN = generateApiToken();
const ADMIN = 'admin-token-of-the-front-tests-0123';
let cores: TestGateway[];
let front: { port: number; close(): Promise<void> };
const companies: number[] = [];

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;

  body: any;
}

/** node:http rather than fetch: fetch refuses a body on GET, which the contract's samples send. */
function send(
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<Answer> {
  // Node sends a GET's body unframed unless it is given its length.
  if (body !== undefined) headers = { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: front.port,
        method,
        path: target,
        headers: { 'x-private-api-token': TOKEN, ...headers },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body: parsed });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
const json = (method: string, target: string, value: unknown) =>
  send(method, target, { 'content-type': 'application/json' }, JSON.stringify(value));

beforeAll(async () => {
  cores = [];
  for (const shard of [0, 1]) {
    cores.push(
      await startTestGateway({
        GATEWAY_SHARD: String(shard),
        GATEWAY_SHARD_SLOTS: '64',
        GATEWAY_BOOTSTRAP_TOKEN: TOKEN,
        GATEWAY_ADMIN_TOKEN: ADMIN,
        GATEWAY_SANDBOX: 'true',
      }),
    );
  }
  const config = loadConfig({
    GATEWAY_PORT: '0',
    GATEWAY_SHARD_SLOTS: '64',
    GATEWAY_SHARD_URLS: cores.map((core) => core.baseUrl).join(','),
    GATEWAY_ADMIN_TOKEN: ADMIN,
  });
  front = await startFront(config, createLogger('warn', new Writable({ write: (_chunk, _encoding, done) => done() })));
  for (let i = 0; i < 4; i++)
    companies.push((await json('POST', '/p1/companies', { name: `Front Co ${i}` })).body.data.external_id as number);
});

afterAll(async () => {
  await front?.close();
  await Promise.all(cores.map((core) => core.close()));
});

describe('the front before two cores', () => {
  it('puts new companies on both shards in turn', () => {
    expect(companies.map((id) => shardOfId(id, 64)).sort()).toEqual([0, 0, 1, 1]);
  });

  it("answers a portal session's 404 for an id its company lacks, not the 401 of a shard without the session", async () => {
    const company = companies.find((id) => shardOfId(id, 64) === 1)!;
    const link = await send('POST', `/api/p2/companies/${company}/portal_sessions`, {});
    expect(link.status, link.text).toBe(201);
    const opened = await send(
      'POST',
      '/portal/session',
      { 'content-type': 'application/json', 'x-private-api-token': '' },
      JSON.stringify({ token: new URL(link.body.portal_session.url as string).hash.slice(1) }),
    );
    expect(opened.status, opened.text).toBe(201);
    const cookie = /gw_portal=[^;]+/.exec(String(opened.headers['set-cookie']))![0];
    const session = { cookie, 'x-csrf-token': opened.body.session.csrf_token as string, 'x-private-api-token': '' };
    const own = await send('GET', '/portal/api/webhooks', session);
    expect(own.status, own.text).toBe(200);
    const missing = await send(
      'PATCH',
      '/portal/api/webhooks/987654321',
      { ...session, 'content-type': 'application/json' },
      '{}',
    );
    expect([missing.status, missing.body?.errors?.[0]?.code], missing.text).toEqual([404, 'not_found']);
  });

  it('routes a GET whose company_id is in a JSON body (the contract samples send them so)', async () => {
    for (const id of companies) {
      const answer = await send(
        'GET',
        '/api/p2/conversations',
        { 'content-type': 'application/json' },
        JSON.stringify({ company_id: id }),
      );
      expect(answer.status, answer.text).toBe(200);
    }
  });

  it('merges GET /api/p2/auths over the shards in id order, page by page', async () => {
    for (const id of companies) {
      expect(
        (await json('POST', `/p1/companies/${id}/channels`, { provider: 'chat_b', token: `123456:front-bot-${id}` }))
          .status,
      ).toBe(201);
      expect(
        (
          await json('POST', `/p1/companies/${id}/channels`, {
            provider: 'chat_a_business',
            hosting_type: 'cloud',
            token: `EAAG-${id}`,
          })
        ).status,
      ).toBe(201);
    }
    const seen: number[] = [];
    for (let page = 1; page <= 3; page++) {
      const answer = await send('GET', `/api/p2/auths?per_page=3&page=${page}`, {});
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.meta).toEqual({ page, per_page: 3, entries_count: 8 });
      seen.push(...(answer.body.auths as { id: number }[]).map((a) => a.id));
    }
    expect(seen.length).toBe(8);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // A bad parameter is answered by the shards' own validation.
    const bad = await send('GET', '/api/p2/auths?per_page=0', {});
    expect(bad.status).toBe(422);
  });

  it('refuses a bulk replay that names no company with 422, and sends one that does to its shard', async () => {
    const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
    const refused = await send('POST', '/admin/replays', admin, JSON.stringify({ status: 'failed' }));
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.errors).toEqual([
      {
        status: 422,
        code: 'validation_failed',
        title: 'Validation failed',
        detail: 'company_id is required: a bulk replay through the front names its company_id',
        source: { pointer: '/company_id' },
      },
    ]);
    for (const id of companies) {
      const started = await send('POST', '/admin/replays', admin, JSON.stringify({ company_id: id }));
      expect(started.status, started.text).toBe(202);
      const task = await send('GET', started.headers.location as string, { authorization: `Bearer ${ADMIN}` });
      expect(task.status, task.text).toBe(200);
      expect(task.body.task.id).toBe(started.body.task.id);
    }
  });

  it('gives a merged list the headers of a shard’s answer: the request id, no-store', async () => {
    for (const target of ['/p1/companies', '/api/p2/auths']) {
      const answer = await send('GET', target, { 'x-request-id': 'merged-list-1' });
      expect(answer.status, answer.text).toBe(200);
      expect([answer.headers['x-request-id'], answer.headers['cache-control']]).toEqual(['merged-list-1', 'no-store']);
      expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.text)));
    }
  });

  it('answers generated bad input with a 4xx in the error shape, never a 5xx', async () => {
    const idText = fc.oneof(
      fc.constantFrom(
        ...companies.map(String),
        '0',
        '-1',
        '1.5',
        'abc',
        '99999999999999999999',
        '%31',
        '',
        '65',
        '130',
      ),
      fc.string({ maxLength: 8 }).map((s) => encodeURIComponent(s)),
    );
    const target = fc.oneof(
      idText.map((id) => `/p1/companies/${id}`),
      idText.map((id) => `/p1/companies/${id}/channels`),
      idText.map((id) => `/api/p2/companies/${id}/webhooks`),
      idText.map((id) => `/api/p2/conversations?company_id=${id}`),
      idText.map((id) => `/api/p2/conversations/${id}/messages?company_id=${id}`),
      idText.map((id) => `/callbacks/chat_b/${id}`),
      idText.map((id) => `/callbacks/chat_a_business/${id}?hub.mode=subscribe`),
      idText.map((id) => `/admin/deliveries?company_id=${id}`),
      idText.map((id) => `/admin/deliveries?cursor=${id}`),
      idText.map((id) => `/admin/deliveries/${id}`),
      idText.map((id) => `/files/${id}/x.png`),
      fc.constantFrom(
        '/api/p2/messages',
        '/api/p2/attachments',
        '/p1/companies',
        '/api/p2/auths?page=abc',
        '/api/p2/biz_templates?sort[x]=1',
        '/admin/replays',
        '/portal/api/webhooks',
        '/nowhere',
        '/p1/companies?from=%ZZ',
      ),
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue().map((v) => ({ type: 'application/json', text: JSON.stringify(v) })),
      idText.map((id) => ({ type: 'application/json', text: JSON.stringify({ company_id: id, text: 'hi' }) })),
      idText.map((id) => ({ type: 'application/x-www-form-urlencoded', text: `company_id=${id}&text=hi` })),
      fc.string({ maxLength: 40 }).map((text) => ({ type: 'application/json', text })),
      idText.map((id) => ({
        type: 'multipart/form-data; boundary=xx',
        text: `--xx\r\nContent-Disposition: form-data; name="company_id"\r\n\r\n${id}\r\n--xx--\r\n`,
      })),
      fc.string({ maxLength: 40 }).map((text) => ({ type: 'multipart/form-data', text })),
    );
    const auth = fc.constantFrom<Record<string, string>>(
      {},
      { 'x-private-api-token': 'gwk_wrong' },
      { authorization: `Bearer ${ADMIN}` },
      { authorization: 'Bearer nope' },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
        target,
        body,
        auth,
        async (method, path, payload, headers) => {
          const answer = await send(
            method,
            path,
            { ...headers, ...(payload ? { 'content-type': payload.type } : {}) },
            payload?.text,
          );
          expect(answer.status, `${method} ${path} ${payload?.text ?? ''}: ${answer.text}`).toBeLessThan(500);
          if (answer.status >= 400 && answer.headers['content-type']?.includes('json')) {
            const errors = answer.body?.errors as { status: number; code: string }[];
            expect(Array.isArray(errors) && errors.length > 0, answer.text).toBe(true);
            for (const entry of errors) expect(entry.status).toBe(answer.status);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('answers 413 in the error shape for a body over the limit it would have to hold', async () => {
    const answer = await send(
      'POST',
      '/api/p2/messages',
      { 'content-type': 'application/json' },
      Buffer.alloc(2 * 1024 * 1024, 32),
    );
    expect(answer.status).toBe(413);
    expect(answer.body.errors[0].code).toBe('payload_too_large');
  });
});
