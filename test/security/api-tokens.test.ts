// API tokens listed and revoked (issue 51 item 6): by the admin API and by `gateway token list` /
// `gateway token revoke`, each with its last use (written at most once a minute), never showing
// the token; a revoked token gets 401 at once.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, failingFields, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const ADMIN_TOKEN = 'admin-token-of-the-token-tests-0123';
const BIN = path.resolve('bin/gateway.js');
const admin = { token: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
});
afterAll(() => gw?.close());

const lastUsed = (id: number) =>
  gw.gateway.store.db.prepare('SELECT last_used_at FROM api_tokens WHERE id = ?').pluck().get(id) as number | null;
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, 'token', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GATEWAY_DATA_DIR: gw.dataDir },
    encoding: 'utf8',
    timeout: 15_000,
  });

describe('the admin API', () => {
  it('lists tokens with their prefix and last use, never the token; revoking one makes its next request a 401', async () => {
    const other = await gw.createAccount('tokens other');
    expect((await gw.request('GET', '/p1/companies', { token: other })).status).toBe(200);
    const listed = await gw.request('GET', '/admin/tokens', admin);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(other);
    expect(listed.text).not.toContain(gw.token);
    const mine = listed.body.tokens.find((t: { account_name: string }) => t.account_name === 'tokens other');
    expect(mine).toEqual({
      id: expect.any(Number),
      account_id: expect.any(Number),
      account_name: 'tokens other',
      prefix: null, // made by the test helper from a digest alone
      state: 'active',
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      revoked_at: null,
    });
    // One account's only, validated like every query of the admin API.
    const ofAccount = await gw.request('GET', `/admin/tokens?account_id=${mine.account_id}`, admin);
    expect(ofAccount.body.tokens).toEqual([mine]);
    expect(failingFields(await gw.request('GET', '/admin/tokens?account_id=abc', admin))).toEqual(['account_id']);
    expect(failingFields(await gw.request('GET', '/admin/tokens?acount_id=1', admin))).toEqual(['']);

    // Last use is written at most once a minute: a second request now writes nothing.
    const first = lastUsed(mine.id);
    expect(first).not.toBeNull();
    expect((await gw.request('GET', '/p1/companies', { token: other })).status).toBe(200);
    expect(lastUsed(mine.id)).toBe(first);

    const revoked = await gw.request('POST', `/admin/tokens/${mine.id}/revoke`, admin);
    expect(revoked.status).toBe(200);
    expect(revoked.body.token).toEqual({ ...mine, state: 'revoked', revoked_at: expect.any(String) });
    const refused = await gw.request('GET', '/p1/companies', { token: other });
    expect(refused.body).toEqual({
      errors: [
        {
          status: 401,
          code: 'unauthorized',
          title: 'Unauthorized',
          detail: 'The API token is invalid or has been revoked.',
        },
      ],
    });
    // A second revocation keeps the first time.
    expect((await gw.request('POST', `/admin/tokens/${mine.id}/revoke`, admin)).body.token.revoked_at).toBe(
      revoked.body.token.revoked_at,
    );
  });

  it('answers 404 for an unknown token, 401 without the admin token', async () => {
    expect((await gw.request('POST', '/admin/tokens/987654/revoke', admin)).body).toEqual({
      errors: [{ status: 404, code: 'not_found', title: 'Not found', detail: 'API token 987654 was not found.' }],
    });
    expectErrorShape(await gw.request('POST', '/admin/tokens/abc/revoke', admin), 404, 'not_found');
    expectErrorShape(await gw.request('GET', '/admin/tokens', { token: gw.token }), 401, 'unauthorized');
    expectErrorShape(await gw.request('POST', '/admin/tokens/1/revoke', { token: gw.token }), 401, 'unauthorized');
  });
});

describe('gateway token list and revoke', () => {
  it('list the tokens with a prefix, and revoke one: the daemon refuses it at once', async () => {
    const created = cli('create', '--name', 'cli team');
    expect(created.status, created.stderr).toBe(0);
    const token = created.stdout.trim();
    expect((await gw.request('GET', '/p1/companies', { token })).status).toBe(200);

    const listed = cli('list');
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(token);
    const line = listed.stdout.split('\n').find((l) => l.includes('cli team'))!;
    const id = Number(line.split(/\s+/)[0]);
    expect(line).toMatch(new RegExp(`^${id}\\s+\\d+ cli team\\s+${token.slice(0, 12)}…\\s+\\S+Z\\s+\\S+Z\\s+-$`));
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+ACCOUNT\s+PREFIX\s+CREATED\s+LAST USED\s+REVOKED$/);

    const revoked = cli('revoke', String(id));
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.stderr).toMatch(
      new RegExp(`^Revoked API token ${id} \\(${token.slice(0, 12)}\\) of account \\d+ "cli team" at \\S+Z\\.\\n$`),
    );
    expect((await gw.request('GET', '/p1/companies', { token })).status).toBe(401);
    expect(
      cli('list')
        .stdout.split('\n')
        .find((l) => l.includes('cli team')),
    ).toMatch(/Z\s+\S+Z$/);

    const unknown = cli('revoke', '987654');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('gateway: there is no API token 987654\n');
    expect(cli('revoke').status).toBe(2);
    expect(cli('list', '--account', 'x').status).toBe(2);
  });
});
