// Export of a company's data as NDJSON: GET /admin/companies/<id>/export and `gateway export`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { seedCompany, seedConversation, type Seeded } from '../helpers/seed.js';

let gw: TestGateway;
let seeded: Seeded;
let hookSecret: string;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  const company = await seedCompany(gw, gw.token, 'Export Co');
  seeded = seedConversation(gw, company, {
    sender: '555000777',
    externalTimes: [Date.UTC(2025, 0, 1), Date.UTC(2025, 0, 2)],
  });
  const hook = await gw.request('POST', `/api/p2/companies/${company.companyId}/webhooks`, {
    json: { url: 'http://127.0.0.1:9/hooks' },
  });
  expect(hook.status, hook.text).toBe(201);
  hookSecret = hook.body.webhook.secret as string;
});
afterAll(() => gw?.close());

/** The kinds of the lines, in order, and the objects of one kind. */
function read(text: string): { kinds: string[]; of: (kind: string) => Record<string, unknown>[] } {
  const objects = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { kinds: objects.map((o) => o.kind as string), of: (kind) => objects.filter((o) => o.kind === kind) };
}

/** What the export of the seeded company must hold, whichever way it was made. */
function expectSeededExport(text: string): void {
  const { kinds, of } = read(text);
  expect(kinds).toEqual(['company', 'channel', 'contact', 'conversation', 'message', 'message', 'webhook']);
  expect(of('company')[0]).toMatchObject({ id: seeded.companyId, name: 'Export Co' });
  expect(of('channel')[0]).toEqual({
    kind: 'channel',
    id: seeded.channelId,
    provider: 'chat_b',
    state: expect.any(String),
    created_at: expect.any(String),
    updated_at: expect.any(String),
    deleted_at: null,
  });
  expect(of('contact')[0]).toMatchObject({ id: seeded.contactId, external_id: '555000777', name: 'User 555000777' });
  expect(of('message').map((m) => [m.id, m.text, m.external_created_at])).toEqual([
    [seeded.messageIds[0], 'incoming 0', '2025-01-01T00:00:00.000Z'],
    [seeded.messageIds[1], 'incoming 1', '2025-01-02T00:00:00.000Z'],
  ]);
  expect(of('message')[0]!.reactions).toEqual([]);
  expect(of('webhook')[0]).toMatchObject({
    kind: 'webhook',
    source: 'api',
    url: 'http://127.0.0.1:9/hooks',
    active: 0,
  });
  // No credential, secret or file capability in any line.
  for (const secret of [hookSecret, `bot-${seeded.companyId}`, 'whsec_', 'credentials', 'storage_key'])
    expect(text).not.toContain(secret);
}

describe('GET /admin/companies/<id>/export', () => {
  it('streams the company as NDJSON, one object per line with its kind', async () => {
    const res = await fetch(`${gw.baseUrl}/admin/companies/${seeded.companyId}/export`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(res.headers.get('x-export-lines')).toBe('7');
    expectSeededExport(await res.text());
  });

  it('answers 404 for an unknown company and 401 without the admin token, in the error shape', async () => {
    const unknown = await gw.admin('GET', '/admin/companies/987654321/export');
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0]).toMatchObject({ status: 404, code: 'not_found' });
    expectErrorShape(
      await gw.request('GET', `/admin/companies/${seeded.companyId}/export`, {
        token: null,
        headers: { authorization: 'Bearer wrong-admin-token-0123456789' },
      }),
      401,
      'unauthorized',
    );
  });
});

describe('gateway export', () => {
  const BIN = path.resolve('bin/gateway.js');
  const run = (args: string[]) =>
    spawnSync(process.execPath, [BIN, 'export', ...args], {
      env: { ...process.env, GATEWAY_DATA_DIR: gw.dataDir },
      encoding: 'utf8',
      timeout: 30_000,
    });

  it('writes the same NDJSON to stdout and a progress line to stderr', () => {
    const result = run(['--company', String(seeded.companyId)]);
    expect(result.status, result.stderr).toBe(0);
    expectSeededExport(result.stdout);
    // Not a terminal: the bar's first line and its last.
    expect(result.stderr).toBe(
      '[..............................] 0/7 lines\n[##############################] 7/7 lines\n\n',
    );
  });

  it('refuses a missing or bad company id and an unknown company', () => {
    for (const args of [[], ['--company', 'abc'], ['--company', '0']]) {
      const result = run(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('gateway: export needs --company <id>');
    }
    const unknown = run(['--company', '987654321']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('gateway: there is no company 987654321\n');
  });
});
