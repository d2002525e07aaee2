// Two cores of a cluster (shards 0 and 1 of 64 slots) and one worker serving both, on the real
// broker: ids carry their shard, each shard's events reach its companies' endpoints through the
// shared worker, and an account made on one shard authenticates on the other through the directory.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { shardOfId } from '../../src/lib/shards.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

const BIN = path.resolve('bin/gateway.js');
const TOKEN = `gwk_${randomBytes(16).toString('hex')}`;
const SLOTS = 64;
const processes: GatewayProcess[] = [];
const dirs: string[] = [];
let cores: GatewayProcess[];
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const secrets: string[] = [];

function env(shard: number): Record<string, string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `gateway-shard-${shard}-`));
  dirs.push(dataDir);
  return {
    GATEWAY_KAFKA_BROKERS: inject('kafkaBrokers'),
    GATEWAY_KAFKA_NAMESPACE: namespace,
    GATEWAY_SHARD: String(shard),
    GATEWAY_SHARD_SLOTS: String(SLOTS),
    GATEWAY_CLUSTER_SHARDS: '2',
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_PORT: '0',
    GATEWAY_BOOTSTRAP_TOKEN: TOKEN,
    GATEWAY_SANDBOX: 'true',
    GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  };
}
const namespace = `shards-${randomBytes(4).toString('hex')}.`;

async function call(
  core: GatewayProcess,
  method: string,
  url: string,
  body?: unknown,
  token = TOKEN,
): Promise<{ status: number; body: any }> {
  const answer = await fetch(`http://127.0.0.1:${core.port}${url}`, {
    method,
    headers: { 'x-private-api-token': token, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: answer.status, body: await answer.json() };
}

beforeAll(async () => {
  receiver = await startReceiver(() => secrets);
  cores = await Promise.all([0, 1].map((shard) => startGatewayProcess('core', env(shard))));
  processes.push(...cores);
  processes.push(await startGatewayProcess('worker', { ...env(0), GATEWAY_SHARD: '0' }));
}, 120_000);

afterAll(async () => {
  // Every process ends on SIGTERM: a timer firing during a shutdown connects no new Kafka client.
  expect(await Promise.all(processes.map((p) => p.stop()))).toEqual([0, 0, 0]);
  await receiver?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a cluster of two shards', () => {
  it('hands out ids of each shard, and delivers each shard’s events through the worker serving both', async () => {
    const companies: number[] = [];
    for (const core of cores) {
      const created = await call(core, 'POST', '/p1/companies', { name: `on ${core.port}` });
      expect(created.status).toBe(201);
      companies.push(created.body.data.external_id);
    }
    expect(companies).toEqual([1, 2]);
    expect(companies.map((id) => shardOfId(id, SLOTS))).toEqual([0, 1]);

    for (const [shard, core] of cores.entries()) {
      const endpoint = await call(core, 'POST', `/api/p2/companies/${companies[shard]}/webhooks`, {
        url: receiver.url,
        active: true,
      });
      expect(endpoint.status).toBe(201);
      secrets.push(endpoint.body.webhook.secret);
    }
    const auths: number[] = [];
    for (const [shard, core] of cores.entries()) {
      const auth = await call(core, 'POST', `/api/p2/companies/${companies[shard]}/auths`, { provider: 'chat_a' });
      expect(auth.status).toBe(201);
      auths.push(auth.body.auth.id);
    }
    expect(auths.map((id) => shardOfId(id, SLOTS))).toEqual([0, 1]);

    // The auth.create of each shard, signed with its own company's endpoint secret.
    const createOf = (id: number) =>
      receiver.received.find(
        (r) =>
          (r.body as { event: string }).event === 'create' && (r.body as { object: { id: number } }).object.id === id,
      );
    await eventually('both auth.create webhooks', () => auths.every((id) => createOf(id) !== undefined));
    for (const [shard, id] of auths.entries()) {
      const webhook = createOf(id)!;
      expect(webhook.verifiedBy).toEqual([shard]);
    }
  });

  it('authenticates on every shard an account made on one of them, within a second or so', async () => {
    const created = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'token', 'create', '--name', 'second team'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env(1), GATEWAY_DATA_DIR: dirs[1]! },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += String(chunk)));
      child.once('exit', (code) => resolve({ code, stdout }));
    });
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^gwk_/);
    expect((await call(cores[1]!, 'GET', '/p1/companies', undefined, token)).status).toBe(200);
    await eventually(
      'the new token on shard 0',
      async () => (await call(cores[0]!, 'GET', '/p1/companies', undefined, token)).status === 200,
      5_000,
    );
    // Its companies are its own on either shard.
    const mine = await call(cores[0]!, 'POST', '/p1/companies', { name: 'second team co' }, token);
    expect(mine.status).toBe(201);
    expect(
      (await call(cores[0]!, 'GET', '/p1/companies', undefined, token)).body.data.companies.map(
        (c: { external_id: number }) => c.external_id,
      ),
    ).toEqual([mine.body.data.external_id]);
  });
});
