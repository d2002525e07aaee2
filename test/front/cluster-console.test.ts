// The operator console in a real headless Chromium against the front of a 3-shard cluster started
// by `gateway cluster` on the real broker (three cores, two workers, the front): log in at the
// front, search the deliveries of companies on every shard, open and change a company that lives
// on a shard other than the one that keeps the session, and see every process on the pipeline page.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOfId } from '../../src/lib/shards.js';
import { launchChromium } from '../helpers/browser.js';
import { startCluster, type TestCluster } from '../helpers/cluster.js';
import { watchedPage } from '../helpers/pages.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

const TOKEN = `gwk_${randomBytes(16).toString('hex')}`;
const ADMIN = `adm_${randomBytes(16).toString('hex')}`;
const SLOTS = 64;

let cluster: TestCluster;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let browser: Browser;
let page: Page;
let problems: () => string[];
/** One company per shard, in shard order. */
const companies: number[] = [];
const endpoints: number[] = [];

async function call(base: string, method: string, urlPath: string, json?: unknown, admin = false) {
  const response = await fetch(`${base}${urlPath}`, {
    method,
    headers: {
      ...(admin ? { authorization: `Bearer ${ADMIN}` } : { 'x-private-api-token': TOKEN }),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  return { status: response.status, text, body: text === '' ? undefined : JSON.parse(text) };
}
const front = (method: string, urlPath: string, json?: unknown, admin = false) =>
  call(cluster.layout.front.url, method, urlPath, json, admin);

beforeAll(async () => {
  receiver = await startReceiver(() => []);
  cluster = await startCluster('console-cluster', {
    GATEWAY_BOOTSTRAP_TOKEN: TOKEN,
    GATEWAY_ADMIN_TOKEN: ADMIN,
    GATEWAY_SANDBOX: 'true',
    GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  });
  while (companies.length < 3) {
    const created = await front('POST', '/p1/companies', { name: `Console Co ${companies.length}` });
    expect(created.status, created.text).toBe(201);
    companies.push(created.body.data.external_id as number);
  }
  companies.sort((a, b) => shardOfId(a, SLOTS) - shardOfId(b, SLOTS));
  expect(companies.map((id) => shardOfId(id, SLOTS))).toEqual([0, 1, 2]);
  for (const id of companies) {
    const webhook = await front('POST', `/api/p2/companies/${id}/webhooks`, { url: receiver.url, active: true });
    expect(webhook.status, webhook.text).toBe(201);
    endpoints.push(webhook.body.webhook.id as number);
    // A business channel: its auth.create and auth.update are each company's deliveries.
    const auth = await front('POST', `/api/p2/companies/${id}/auths`, {
      provider: 'chat_a_business',
      hosting_type: 'cloud',
      token: 'any',
    });
    expect(auth.status, auth.text).toBe(201);
  }
  await eventually('a delivered webhook of every company, listed through the front', async () => {
    const list = await front('GET', '/admin/deliveries?status=delivered&limit=100', undefined, true);
    const seen = new Set((list.body?.deliveries ?? []).map((d: { company_id: number }) => d.company_id));
    return companies.every((id) => seen.has(id));
  });
  browser = await launchChromium();
  ({ page, problems } = await watchedPage(await browser.newContext({ viewport: { width: 1280, height: 860 } })));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await cluster?.stop();
  await receiver?.close();
});

const rowsOf = (table: string) =>
  page.$$eval(`#${table} tbody tr`, (rows) =>
    rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')),
  );

describe('the console through the front of a 3-shard cluster', () => {
  it('logs in at the front', async () => {
    await page.goto(`${cluster.layout.front.url}/console`);
    await page.waitForURL(`${cluster.layout.front.url}/console/login`);
    await page.getByLabel('Admin token').fill(ADMIN);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#deliveries');
    expect(page.url()).toBe(`${cluster.layout.front.url}/console#/deliveries`);
  });

  it('lists the deliveries of every shard, and of one company on a shard without the session', async () => {
    await expect
      .poll(async () => new Set((await rowsOf('deliveries')).map((cells) => Number(cells[2]))))
      .toEqual(new Set(companies));
    const far = companies[2]!;
    await page.getByLabel('Company').fill(String(far));
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect
      .poll(async () => new Set((await rowsOf('deliveries')).map((cells) => Number(cells[2]))))
      .toEqual(new Set([far]));
    // One delivery of that shard, opened by its id (the front asks every shard).
    const first = await page.locator('#deliveries tbody tr').first().getAttribute('data-delivery');
    await page.click(`a[href="#/deliveries/${first}"]`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain(first!);
  });

  it('disables and enables an endpoint of a company on another shard (the CSRF path)', async () => {
    const [far, endpoint] = [companies[2]!, endpoints[2]!];
    const owner = cluster.layout.cores[2]!.url;
    await page.goto(`${cluster.layout.front.url}/console#/endpoints?company_id=${far}`);
    const panel = page.locator(`section[data-endpoint="${endpoint}"]`);
    await panel.getByLabel('Reason').fill('receiver moves to a new host');
    await panel.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => page.textContent('#status')).toBe(`Endpoint ${endpoint} is disabled.`);
    const disabled = await call(owner, 'GET', `/admin/companies/${far}/endpoints`, undefined, true);
    expect(disabled.body.endpoints[0]).toMatchObject({
      endpoint_id: endpoint,
      active: false,
      disabled_reason: 'receiver moves to a new host',
    });
    await panel.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(() => page.textContent('#status')).toBe(`Endpoint ${endpoint} is enabled.`);
    const enabled = await call(owner, 'GET', `/admin/companies/${far}/endpoints`, undefined, true);
    expect(enabled.body.endpoints[0]).toMatchObject({ endpoint_id: endpoint, active: true });
  });

  it('shows every process of the cluster on the pipeline page: the front, 3 cores and 2 workers', async () => {
    const { layout } = cluster;
    await page.goto(`${layout.front.url}/console#/pipeline`);
    await page.waitForSelector('#processes');
    const rows = await rowsOf('processes');
    const port = new URL(layout.front.url).port;
    expect(rows.map(([role, shard, address, health]) => [role, shard, address, health])).toEqual([
      ['front', 'all', expect.stringMatching(new RegExp(`^http://.+:${port}$`)), 'ok'],
      ...layout.cores.map((core) => ['core', String(core.shard), core.url, 'ok']),
      ...layout.workers.map((worker) => ['worker', 'all', worker.url, 'ok']),
    ]);
    // Each stream's lag is labelled with its shard.
    expect(new Set((await rowsOf('streams')).map((cells) => cells[0]))).toEqual(new Set(['0', '1', '2']));
    expect(problems()).toEqual([]);
  });

  it('lists the API tokens with their latest use on any shard, in the console API and in gateway token list', async () => {
    const merged = await front('GET', '/admin/tokens', undefined, true);
    expect(merged.status, merged.text).toBe(200);
    const uses = await Promise.all(
      cluster.layout.cores.map(async (core) => {
        const own = await call(core.url, 'GET', '/admin/tokens', undefined, true);
        return own.body.tokens[0].last_used_at as string | null;
      }),
    );
    const latest = uses
      .filter((at) => at !== null)
      .sort()
      .at(-1)!;
    expect(merged.body.tokens).toHaveLength(1);
    expect(merged.body.tokens[0]).toMatchObject({ prefix: null, revoked_at: null });
    expect(merged.body.tokens[0].last_used_at).toBe(latest);
    // The command on a cluster's settings asks the front.
    const listed = spawnSync(process.execPath, ['bin/gateway.js', 'token', 'list'], {
      env: {
        PATH: process.env.PATH,
        GATEWAY_SHARD_SLOTS: String(SLOTS),
        GATEWAY_PUBLIC_URL: cluster.layout.front.url,
        GATEWAY_ADMIN_TOKEN: ADMIN,
      },
      encoding: 'utf8',
    });
    expect(listed.status, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]!.split(/\s{2,}/)).toEqual([
      String(merged.body.tokens[0].id),
      `${merged.body.tokens[0].account_id} ${merged.body.tokens[0].account_name}`,
      // The bootstrap token keeps no prefix.
      '-',
      merged.body.tokens[0].created_at,
      latest,
      '-',
    ]);
  });
});
