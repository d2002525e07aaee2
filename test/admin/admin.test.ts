import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/streams/stream.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { emitEvent, insertCompany, insertEndpoint } from '../helpers/pipeline.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let failing = true;
let companyA: number;
let companyB: number;
let endpointA: number;
const clock = new ManualClock();

function expectError(res: { status: number; body: any }, status: number, code: string): string {
  expect(res.status).toBe(status);
  expect(res.body.errors.length).toBeGreaterThanOrEqual(1);
  for (const entry of res.body.errors)
    expect(
      Object.keys(entry)
        .filter((k) => k !== 'source')
        .sort(),
    ).toEqual(['code', 'detail', 'status', 'title']);
  expect(res.body.errors[0]).toMatchObject({ status, code });
  return res.body.errors[0].detail;
}

beforeAll(async () => {
  gw = await startTestGateway({ ...TO_RECEIVERS, GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0' }, { clock });
  receiver = await startReceiver(
    () => [],
    () => (failing ? { status: 500 } : { status: 204 }),
  );
  companyA = insertCompany(gw.store, 'A');
  companyB = insertCompany(gw.store, 'B');
  endpointA = insertEndpoint(gw.store, companyA, receiver.url).id;
  insertEndpoint(gw.store, companyB, receiver.url);
  for (let i = 0; i < 5; i += 1) emitEvent(gw.store, companyA, i % 2 ? 'conversation.update' : 'message.create');
  for (let i = 0; i < 3; i += 1) emitEvent(gw.store, companyB);
  await eventually(
    'eight failed deliveries',
    async () => (await gw.admin('GET', '/admin/deliveries?status=failed&limit=200')).body.deliveries.length === 8,
  );
});
afterAll(async () => {
  await gw.close();
  await receiver.close();
});

describe('admin authentication', () => {
  it('answers 401 in the error shape without the token or with a wrong one', async () => {
    expect(expectError(await gw.admin('GET', '/admin/deliveries', undefined, null), 401, 'unauthorized')).toMatch(
      /No admin token/,
    );
    expect(
      expectError(await gw.admin('GET', '/admin/deliveries', undefined, 'wrong-token-0123456789'), 401, 'unauthorized'),
    ).toMatch(/invalid/);
  });

  it('does not accept an API token in place of the admin token', async () => {
    const res = await fetch(`${gw.baseUrl}/admin/deliveries`, { headers: { 'x-private-api-token': 'anything' } });
    expect(res.status).toBe(401);
  });
});

describe('delivery list', () => {
  it('filters by company, endpoint, status and event type', async () => {
    const byCompany = await gw.admin('GET', `/admin/deliveries?company_id=${companyB}`);
    expect(byCompany.body.deliveries).toHaveLength(3);
    expect(byCompany.body.deliveries.every((d: { company_id: number }) => d.company_id === companyB)).toBe(true);
    const byType = await gw.admin('GET', `/admin/deliveries?company_id=${companyA}&event_type=conversation.update`);
    expect(byType.body.deliveries).toHaveLength(2);
    expect(
      (await gw.admin('GET', `/admin/deliveries?endpoint_id=${endpointA}&status=failed`)).body.deliveries,
    ).toHaveLength(5);
    expect((await gw.admin('GET', '/admin/deliveries?status=delivered')).body.deliveries).toHaveLength(0);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect((await gw.admin('GET', `/admin/deliveries?since=${future}`)).body.deliveries).toHaveLength(0);
  });

  it('pages with a keyset cursor, newest first, without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { deliveries: { id: string }[]; next_cursor: string | null } } = await gw.admin(
        'GET',
        `/admin/deliveries?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.body.deliveries.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.deliveries.map((d) => d.id));
      cursor = res.body.next_cursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(8);
    expect(new Set(seen).size).toBe(8);
    const all = (await gw.admin('GET', '/admin/deliveries?limit=200')).body.deliveries.map((d: { id: string }) => d.id);
    expect(seen).toEqual(all);
  });

  it('answers 422 for bad filters and cursors', async () => {
    expectError(await gw.admin('GET', '/admin/deliveries?status=lost'), 422, 'validation_failed');
    expectError(await gw.admin('GET', '/admin/deliveries?limit=1000'), 422, 'validation_failed');
    expectError(await gw.admin('GET', '/admin/deliveries?cursor=nonsense'), 422, 'validation_failed');
    expectError(await gw.admin('GET', '/admin/deliveries?since=yesterday'), 422, 'validation_failed');
  });
});

describe('one delivery', () => {
  it('shows a delivery with its attempts, and 404 for an unknown id', async () => {
    const [delivery] = (await gw.admin('GET', `/admin/deliveries?company_id=${companyB}&limit=1`)).body.deliveries;
    const shown = await gw.admin('GET', `/admin/deliveries/${delivery.id}`);
    expect(shown.body.delivery).toEqual(delivery);
    expect(shown.body.attempts).toEqual([
      expect.objectContaining({
        number: 1,
        trigger: 'auto',
        status_code: 500,
        outcome: 'failed',
        response_body: 'answer 500',
      }),
    ]);
    expectError(await gw.admin('GET', '/admin/deliveries/dlv_missing'), 404, 'not_found');
    expectError(await gw.admin('POST', '/admin/deliveries/dlv_missing/replay'), 404, 'not_found');
  });
});

describe('bulk replay', () => {
  it('answers 202 with a task whose progress reaches completed, and delivers what it replayed', async () => {
    failing = false;
    const res = await gw.admin('POST', '/admin/replays', { company_id: companyA, status: 'failed' });
    expect(res.status).toBe(202);
    expect(res.body.task).toMatchObject({ status: 'queued', total: 5, enqueued: 0 });
    await eventually(
      'task completed',
      async () => (await gw.admin('GET', `/admin/replays/${res.body.task.id}`)).body.task.status === 'completed',
    );
    expect((await gw.admin('GET', `/admin/replays/${res.body.task.id}`)).body.task).toMatchObject({
      total: 5,
      enqueued: 5,
    });
    await eventually(
      'replayed deliveries delivered',
      async () =>
        (await gw.admin('GET', `/admin/deliveries?company_id=${companyA}&status=delivered`)).body.deliveries.length ===
        5,
    );
    expect(
      (await gw.admin('GET', `/admin/deliveries?company_id=${companyB}&status=failed`)).body.deliveries,
    ).toHaveLength(3);
  });

  it('refuses a filter that names none of status, company or endpoint, and unknown tasks', async () => {
    expectError(await gw.admin('POST', '/admin/replays', {}), 422, 'validation_failed');
    expectError(await gw.admin('GET', '/admin/replays/rpl_missing'), 404, 'not_found');
  });
});

describe('endpoint health and pipeline lag', () => {
  it('shows last success, consecutive failures and disabled state per endpoint', async () => {
    const res = await gw.admin('GET', `/admin/companies/${companyB}/endpoints`);
    expect(res.body.endpoints).toEqual([
      expect.objectContaining({ active: true, consecutive_failures: 3, last_success_at: null, disabled_since: null }),
    ]);
    expect(
      (await gw.admin('GET', `/admin/companies/${companyA}/endpoints`)).body.endpoints[0].last_success_at,
    ).not.toBeNull();
  });

  it('takes only a plain positive integer as the company id of the path', async () => {
    // Number() would read these as company ids; as path ids they name nothing.
    expectError(await gw.admin('GET', `/admin/companies/0x${companyB.toString(16)}/endpoints`), 404, 'not_found');
    expectError(await gw.admin('GET', `/admin/companies/${companyB}.0/endpoints`), 404, 'not_found');
    expectError(await gw.admin('GET', '/admin/companies/abc/endpoints'), 404, 'not_found');
  });

  it('shows the outbox lag', async () => {
    const res = await gw.admin('GET', '/admin/pipeline');
    expect(res.body.outbox).toEqual({ pending: 0, oldest_created_at: null, lag_ms: 0 });
  });
});

describe('gateway replay (CLI)', () => {
  it('replays by filter with a progress bar, and one delivery by id', async () => {
    // Asynchronous: the gateway answering the CLI runs in this very process.
    const { execFile } = await import('node:child_process');
    const path = await import('node:path');
    const spawnSync = (file: string, args: string[], options: { env: NodeJS.ProcessEnv; encoding: 'utf8' }) =>
      new Promise<{ status: number | null; stderr: string }>((resolve) =>
        execFile(file, args, options, (error, _stdout, stderr) =>
          resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
        ),
      );
    const env = {
      ...process.env,
      GATEWAY_PUBLIC_URL: gw.baseUrl,
      GATEWAY_ADMIN_TOKEN: 'admin-token-for-tests-0123456789',
    };
    const bulk = await spawnSync(
      process.execPath,
      [path.resolve('bin/gateway.js'), 'replay', '--company', String(companyB), '--status', 'failed'],
      { env, encoding: 'utf8' },
    );
    expect(bulk.status, bulk.stderr).toBe(0);
    expect(bulk.stderr).toMatch(/\[#+\] 3\/3/);
    expect(bulk.stderr).toMatch(/completed: 3 of 3 deliveries replayed/);
    await eventually(
      'company B delivered',
      async () =>
        (await gw.admin('GET', `/admin/deliveries?company_id=${companyB}&status=delivered`)).body.deliveries.length ===
        3,
    );

    const [one] = (await gw.admin('GET', `/admin/deliveries?company_id=${companyB}&limit=1`)).body.deliveries;
    const single = await spawnSync(process.execPath, [path.resolve('bin/gateway.js'), 'replay', one.id], {
      env,
      encoding: 'utf8',
    });
    expect(single.status, single.stderr).toBe(0);
    expect(single.stderr).toContain(`replay of ${one.id} queued`);
    const missing = await spawnSync(process.execPath, [path.resolve('bin/gateway.js'), 'replay', 'dlv_missing'], {
      env,
      encoding: 'utf8',
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/There is no delivery dlv_missing/);
  });
});
