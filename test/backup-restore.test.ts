import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from './helpers/gateway-process.js';

const BIN = path.resolve('bin/gateway.js');
const TOKEN = 'gwk_backup_restore_test_token';
const running: GatewayProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.stop()));
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-backup-'));
  dirs.push(dir);
  return dir;
}

/** Runs the gateway command without blocking this event loop (the daemon keeps being written to meanwhile). */
function gateway(args: string[], dataDir: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, GATEWAY_DATA_DIR: dataDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

async function serve(dataDir: string): Promise<GatewayProcess> {
  const started = await startGatewayProcess('all', {
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_PORT: '0',
    GATEWAY_BOOTSTRAP_TOKEN: TOKEN,
  });
  running.push(started);
  return started;
}

async function createCompany(port: number, name: string): Promise<number> {
  const answer = await fetch(`http://127.0.0.1:${port}/p1/companies`, {
    method: 'POST',
    headers: { 'x-private-api-token': TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { data: { external_id: number } }).data.external_id;
}

/** Every company's name, in id order, over every page. */
async function companyNames(port: number): Promise<string[]> {
  const names: string[] = [];
  // next_page is empty on the last page.
  let from = '';
  do {
    const answer = await fetch(
      `http://127.0.0.1:${port}/p1/companies?per=100${from === '' ? '' : `&from=${encodeURIComponent(from)}`}`,
      { headers: { 'x-private-api-token': TOKEN } },
    );
    expect(answer.status).toBe(200);
    const { data } = (await answer.json()) as { data: { companies: { name: string }[]; next_page: string } };
    names.push(...data.companies.map((c) => c.name));
    from = data.next_page;
  } while (from !== '');
  return names;
}

// Each test starts daemons and runs the command several times: on a loaded machine that takes a while.
describe('backup and restore of a running store', { timeout: 120_000 }, () => {
  it('copies one commit of the store while the daemon writes, and a new process serves the copy', async () => {
    const source = tempDir();
    const daemon = await serve(source);
    const before = ['Acme', 'Globex', 'Initech'];
    for (const name of before) await createCompany(daemon.port!, name);

    // Companies keep arriving while the backup runs.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) await createCompany(daemon.port!, `during ${++written}`);
    })();
    const file = path.join(tempDir(), 'shard.db');
    const backup = await gateway(['backup', file], source);
    writing = false;
    await writer;
    expect(backup).toMatchObject({ code: 0 });
    expect(backup.stderr).toMatch(/^Backed up .*gateway\.db \(\d+ pages\) to .*shard\.db\n$/);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['shard.db']);

    const target = tempDir();
    const restored = await gateway(['restore', file], target);
    expect(restored).toMatchObject({ code: 0 });
    expect(fs.readdirSync(target)).toEqual(['gateway.db']);
    const copy = await serve(target);
    const names = await companyNames(copy.port!);
    // The copy holds everything committed before the backup began, then a gapless prefix of what came during it.
    const during = names.filter((name) => name.startsWith('during '));
    expect(names.slice(0, before.length).sort()).toEqual([...before].sort());
    expect(names).toHaveLength(before.length + during.length);
    expect(during.sort((a, b) => Number(a.slice(7)) - Number(b.slice(7)))).toEqual(
      during.map((_, i) => `during ${i + 1}`),
    );
    expect(written).toBeGreaterThanOrEqual(during.length);
  });

  it('refuses to overwrite a file, to restore over a store, or to restore what is not a store, and leaves nothing behind', async () => {
    const source = tempDir();
    const daemon = await serve(source);
    await createCompany(daemon.port!, 'Acme');
    const folder = tempDir();
    const existing = path.join(folder, 'taken.db');
    fs.writeFileSync(existing, 'mine');
    expect(await gateway(['backup', existing], source)).toEqual({
      code: 1,
      stderr: `gateway: ${existing} exists already: a backup never overwrites a file\n`,
    });
    expect(fs.readFileSync(existing, 'utf8')).toBe('mine');

    expect(await gateway(['restore', existing], tempDir())).toEqual({
      code: 1,
      stderr: `gateway: ${existing} is not a store: file is not a database\n`,
    });
    expect(await gateway(['restore', path.join(folder, 'missing.db')], tempDir())).toEqual({
      code: 1,
      stderr: `gateway: no backup at ${path.join(folder, 'missing.db')}\n`,
    });
    const file = path.join(folder, 'good.db');
    expect(await gateway(['backup', file], source)).toMatchObject({ code: 0 });
    expect(await gateway(['restore', file], source)).toEqual({
      code: 1,
      stderr: `gateway: ${path.join(source, 'gateway.db')} exists already: restore into a data dir without a store\n`,
    });
    expect(await gateway(['backup'], source)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('gateway: backup needs one file name'),
    });
    expect(fs.readdirSync(folder).sort()).toEqual(['good.db', 'taken.db']);
  });
});
