// The console's calls through the front, in this process before two real cores (shards 0 and 1 of
// 64 slots, each a full gateway on a store of its own) and one worker's /healthz: the session lives
// on shard 0, the admin API answers from both; the pipeline lists every process, the token list
// every shard's last use.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { generateApiToken } from '../../src/domain/tokens.js';
import { shardOfId } from '../../src/lib/shards.js';
import { createLogger } from '../../src/log.js';
import { startFront } from '../../src/roles/front-role.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { emitEvent, insertCompany, insertEndpoint } from '../helpers/pipeline.js';
import { eventually } from '../helpers/wait.js';

const TOKEN = generateApiToken();
const ADMIN = 'admin-token-of-the-front-console-tests';
let cores: TestGateway[];
let worker: http.Server;
let workerUrl: string;
let front: { port: number; close(): Promise<void> };
let frontLog = '';
const company: number[] = [];
const endpoint: number[] = [];
const closed = new Set<TestGateway>();
let cookie = '';
let csrf = '';

async function call(
  method: string,
  target: string,
  options: { headers?: Record<string, string>; json?: unknown } = {},
): Promise<{ status: number; headers: Headers; text: string; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`http://127.0.0.1:${front.port}${target}`, {
    method,
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
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
const asConsole = (method: string, target: string, options: { json?: unknown; csrf?: string } = {}) =>
  call(method, target, {
    json: options.json,
    headers: { cookie, ...(options.csrf === undefined ? {} : { 'x-csrf-token': options.csrf }) },
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
  worker = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'ok', role: 'worker', kafka_clients: { recovering: [], recreated: {} } }));
  });
  await new Promise<void>((resolve) => worker.listen(0, '127.0.0.1', resolve));
  workerUrl = `http://127.0.0.1:${(worker.address() as AddressInfo).port}`;
  const config = loadConfig({
    GATEWAY_PORT: '0',
    GATEWAY_SHARD_SLOTS: '64',
    GATEWAY_SHARD_URLS: cores.map((core) => core.baseUrl).join(','),
    GATEWAY_WORKER_URLS: workerUrl,
    GATEWAY_ADMIN_TOKEN: ADMIN,
  });
  const sink = new Writable({
    write: (chunk, _encoding, done) => {
      frontLog += String(chunk);
      done();
    },
  });
  front = await startFront(config, createLogger('debug', sink));
  for (const core of cores) {
    const id = insertCompany(core.store, `Console Co ${core.store === cores[0]!.store ? 0 : 1}`);
    company.push(id);
    endpoint.push(insertEndpoint(core.store, id, 'http://127.0.0.1:9/hook').id);
    emitEvent(core.store, id);
  }
  expect(company.map((id) => shardOfId(id, 64))).toEqual([0, 1]);
  await eventually('a delivery on each shard', async () =>
    (await Promise.all(cores.map((core) => core.admin('GET', '/admin/deliveries', undefined, ADMIN)))).every(
      (answer) => answer.body.deliveries.length === 1,
    ),
  );
});

afterAll(async () => {
  await front?.close();
  await new Promise((resolve) => worker?.close(resolve));
  await Promise.all(cores.filter((core) => !closed.has(core)).map((core) => core.close()));
});

describe('the console through the front', () => {
  it('logs in at the home shard (the lowest live one)', async () => {
    const opened = await call('POST', '/console/session', { json: { token: ADMIN } });
    expect(opened.status, opened.text).toBe(201);
    cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
    csrf = opened.body.session.csrf_token as string;
    expect(cookie).toMatch(/^gw_console=gws_/);
    expect(cores[0]!.store.db.prepare("SELECT count(*) AS n FROM web_sessions WHERE face = 'console'").get()).toEqual({
      n: 1,
    });
    expect(cores[1]!.store.db.prepare("SELECT count(*) AS n FROM web_sessions WHERE face = 'console'").get()).toEqual({
      n: 0,
    });
  });

  it("reads a company's endpoints on the shard that has no session, and merges the deliveries of both", async () => {
    const endpoints = await asConsole('GET', `/admin/companies/${company[1]}/endpoints`);
    expect(endpoints.status, endpoints.text).toBe(200);
    expect(endpoints.body.endpoints.map((e: { endpoint_id: number }) => e.endpoint_id)).toEqual([endpoint[1]]);
    const deliveries = await asConsole('GET', '/admin/deliveries');
    expect(deliveries.status, deliveries.text).toBe(200);
    expect(deliveries.body.deliveries.map((d: { company_id: number }) => d.company_id).sort()).toEqual(
      [...company].sort(),
    );
    // One delivery by its id: every shard is asked, the one that has it answers.
    const one = await asConsole('GET', `/admin/deliveries/${deliveries.body.deliveries[0].id}`);
    expect(one.status, one.text).toBe(200);
  });

  it('changes something on another shard only with the CSRF token of the session', async () => {
    const target = `/admin/companies/${company[1]}/endpoints/${endpoint[1]}/disable`;
    const without = await asConsole('POST', target, { json: { reason: 'no token' } });
    expect(without.status, without.text).toBe(403);
    expect(without.body.errors[0].code).toBe('forbidden');
    const wrong = await asConsole('POST', target, { json: { reason: 'wrong token' }, csrf: `${csrf}x` });
    expect(wrong.status, wrong.text).toBe(403);
    expect(cores[1]!.store.webhooks.find(company[1]!, endpoint[1]!)!.active).toBe(1);
    const disabled = await asConsole('POST', target, { json: { reason: 'moving host' }, csrf });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.endpoint).toMatchObject({ active: false, disabled_reason: 'moving host' });
    expect(cores[1]!.store.webhooks.find(company[1]!, endpoint[1]!)!.active).toBe(0);
    const enabled = await asConsole('POST', `/admin/companies/${company[1]}/endpoints/${endpoint[1]}/enable`, { csrf });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.endpoint.active).toBe(true);
  });

  it('answers 401 for a cookie no shard knows, and the admin token still works as it did', async () => {
    const unknown = await call('GET', `/admin/companies/${company[1]}/endpoints`, {
      headers: { cookie: 'gw_console=gws_not-a-session' },
    });
    expect(unknown.status, unknown.text).toBe(401);
    expect(unknown.body.errors[0].code).toBe('unauthorized');
    const bearer = await call('GET', `/admin/companies/${company[1]}/endpoints`, {
      headers: { authorization: `Bearer ${ADMIN}`, cookie: 'gw_console=gws_not-a-session' },
    });
    expect(bearer.status, bearer.text).toBe(200);
    const wrongBearer = await call('GET', '/admin/pipeline', { headers: { authorization: 'Bearer wrong-token-x' } });
    expect(wrongBearer.status, wrongBearer.text).toBe(401);
  });

  it('lists every API token once, with the latest use any shard saw', async () => {
    // The bootstrap token used on shard 1 only.
    const used = await call('GET', `/api/p2/companies/${company[1]}/auths`, {
      headers: { 'x-private-api-token': TOKEN },
    });
    expect(used.status, used.text).toBe(200);
    const own = await Promise.all(cores.map((core) => core.admin('GET', '/admin/tokens', undefined, ADMIN)));
    expect(own[0]!.body.tokens[0].last_used_at).toBeNull();
    const lastUse = own[1]!.body.tokens[0].last_used_at as string;
    expect(lastUse).toEqual(expect.any(String));
    const merged = await asConsole('GET', '/admin/tokens');
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.tokens).toEqual([{ ...own[0]!.body.tokens[0], last_used_at: lastUse }]);
    const refused = await asConsole('GET', '/admin/tokens?account_id=abc');
    expect(refused.status, refused.text).toBe(422);
  });

  it('shows every process of the cluster on the pipeline, a shard that is down as down', async () => {
    const pipeline = await asConsole('GET', '/admin/pipeline');
    expect(pipeline.status, pipeline.text).toBe(200);
    expect(
      pipeline.body.processes.map((p: { role: string; shard: number | null; status: string; address: string }) => [
        p.role,
        p.shard,
        p.status,
        p.address,
      ]),
    ).toEqual([
      ['front', null, 'ok', expect.stringMatching(new RegExp(`^http://.+:${front.port}$`))],
      ['core', 0, 'ok', cores[0]!.baseUrl],
      ['core', 1, 'ok', cores[1]!.baseUrl],
      ['worker', null, 'ok', workerUrl],
    ]);
    expect(pipeline.body.outbox).toMatchObject({ pending: expect.any(Number), lag_ms: expect.any(Number) });
    expect(pipeline.body.attempts.per_minute.length).toBeGreaterThanOrEqual(60);

    closed.add(cores[1]!);
    await cores[1]!.close();
    await eventually('shard 1 down on the pipeline page', async () => {
      const answer = await asConsole('GET', '/admin/pipeline');
      return (
        answer.status === 200 &&
        answer.body.processes.some(
          (p: { shard: number | null; status: string }) => p.shard === 1 && p.status === 'down',
        )
      );
    });
    const after = await asConsole('GET', '/admin/pipeline');
    expect(after.body.processes.map((p: { role: string; status: string }) => `${p.role}:${p.status}`)).toEqual([
      'front:degraded',
      'core:ok',
      'core:down',
      'worker:ok',
    ]);
    // The session lives on shard 0, which is up: the console goes on; shard 1's company answers 503.
    expect((await asConsole('GET', `/admin/companies/${company[0]}/endpoints`)).status).toBe(200);
    const gone = await asConsole('GET', `/admin/companies/${company[1]}/endpoints`);
    expect(gone.status, gone.text).toBe(503);
    // Nothing of the admin token or the session reached a log.
    const session = cookie.split('=')[1]!;
    for (const text of [frontLog, cores[0]!.logText(), cores[1]!.logText()]) {
      expect(text).not.toContain(ADMIN);
      expect(text).not.toContain(session);
      expect(text).not.toContain(csrf);
    }
  });
});
