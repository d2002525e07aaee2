import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/store/engine/migrate.js';

/** Black-box: the built `gateway` command, as a user runs it (npm test builds first). */
const BIN = path.resolve('bin/gateway.js');

interface Daemon {
  child: ChildProcess;
  port: number;
  output: () => string;
  stop: () => Promise<number | null>;
}

const running: Daemon[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((d) => d.stop()));
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-cli-'));
  dirs.push(dir);
  return dir;
}

function baseEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_PORT: '0',
  };
  return { ...env, ...extra };
}

async function startDaemon(env: NodeJS.ProcessEnv): Promise<Daemon> {
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start:\n${output}`)), 15_000);
    const check = () => {
      const line = output.split('\n').find((l) => l.includes('"gateway listening"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line).port as number);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', () => reject(new Error(`daemon exited:\n${output}`)));
  });
  const daemon: Daemon = {
    child,
    port,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  running.push(daemon);
  return daemon;
}

async function get(port: number, pathname: string, token?: string) {
  const response = await fetch(`http://127.0.0.1:${port}${pathname}`, {
    headers: token ? { 'x-private-api-token': token } : {},
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('gateway serve', () => {
  it('creates the first account with GATEWAY_BOOTSTRAP_TOKEN and answers /healthz with the store state', async () => {
    const dataDir = tempDataDir();
    const token = 'bootstrap-token-for-tests-0001';
    const daemon = await startDaemon(baseEnv(dataDir, { GATEWAY_BOOTSTRAP_TOKEN: token }));

    const health = await get(daemon.port, '/healthz');
    expect(health).toEqual({
      status: 200,
      body: {
        status: 'ok',
        store: { status: 'ok', schema_version: MIGRATIONS.at(-1)!.version, journal_mode: 'wal' },
        outbox: { pending: 0, oldest_pending_age_ms: null },
      },
    });
    expect((await get(daemon.port, '/p1/companies', token)).status).toBe(200);
    expect(fs.existsSync(path.join(dataDir, 'gateway.db'))).toBe(true);
    expect(daemon.output()).not.toContain(token);

    expect(await daemon.stop()).toBe(0);
    expect(daemon.output()).toContain('"msg":"stopped"');
  });

  it('prints a generated token once on the first start, and never again', async () => {
    const dataDir = tempDataDir();
    const first = await startDaemon(baseEnv(dataDir));
    const tokens = [...first.output().matchAll(/"api_token":"([^"]+)"/g)].map((m) => m[1]!);
    expect(tokens).toHaveLength(1);
    expect((await get(first.port, '/p1/companies', tokens[0])).status).toBe(200);
    await first.stop();

    const second = await startDaemon(baseEnv(dataDir));
    expect(second.output()).not.toContain('api_token');
    expect((await get(second.port, '/p1/companies', tokens[0])).status).toBe(200);
  });

  it('refuses to start on bad configuration, naming every bad key', () => {
    const result = spawnSync(process.execPath, [BIN, 'serve'], {
      env: baseEnv(tempDataDir(), {
        GATEWAY_PORT: 'eighty',
        GATEWAY_LOG_LEVEL: 'loud',
        GATEWAY_ADMIN_TOKEN: 'short',
        GATEWAY_KAFKA_BROKERS: 'nohost',
      }),
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(result.status).toBe(78);
    for (const key of ['GATEWAY_PORT', 'GATEWAY_LOG_LEVEL', 'GATEWAY_ADMIN_TOKEN', 'GATEWAY_KAFKA_BROKERS']) {
      expect(result.stderr).toContain(key);
    }
    expect(result.stdout).not.toContain('listening');
  });
});

describe('gateway token create', () => {
  it('prints a new token for a new account, usable by the running daemon at once', async () => {
    const dataDir = tempDataDir();
    const bootstrap = 'bootstrap-token-for-tests-0002';
    const daemon = await startDaemon(baseEnv(dataDir, { GATEWAY_BOOTSTRAP_TOKEN: bootstrap }));
    const created = await fetch(`http://127.0.0.1:${daemon.port}/p1/companies`, {
      method: 'POST',
      headers: { 'x-private-api-token': bootstrap, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bootstrap Co' }),
    });
    expect(created.status).toBe(201);

    const result = spawnSync(process.execPath, [BIN, 'token', 'create', '--name', 'second team'], {
      env: baseEnv(dataDir),
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(result.status).toBe(0);
    const token = result.stdout.trim();
    expect(token).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
    expect(result.stdout).toBe(`${token}\n`);
    // The daemon's own store (its "store ready" log line names the same file).
    const store = path.join(dataDir, 'gateway.db');
    expect(daemon.output()).toContain(`"store":"${store}"`);
    expect(result.stderr).toBe(`Store: ${store}\nCreated account 2 "second team". Its API token (shown once):\n`);

    const list = await get(daemon.port, '/p1/companies', token);
    expect(list).toEqual({ status: 200, body: { status: 'ok', data: { companies: [], next_page: '' } } });
    expect(daemon.output()).not.toContain(token);
  });

  it('names a store it has just created, so a token made on the wrong data dir shows', () => {
    const dataDir = path.join(tempDataDir(), 'not-the-daemons');
    const result = spawnSync(process.execPath, [BIN, 'token', 'create', '--name', 'lost'], {
      env: baseEnv(dataDir),
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^gwk_[A-Za-z0-9_-]{43}\n$/);
    const store = path.join(dataDir, 'gateway.db');
    expect(result.stderr).toBe(
      `Store: ${store} (did not exist, created now)\nCreated account 1 "lost". Its API token (shown once):\n`,
    );
    expect(fs.existsSync(store)).toBe(true);
  });

  it('needs --name', () => {
    const result = spawnSync(process.execPath, [BIN, 'token', 'create'], {
      env: baseEnv(tempDataDir()),
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--name');
  });
});
