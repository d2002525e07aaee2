// What of the portal's links and sessions only the store shows: a link is kept as a digest of its
// token alone, an expired link opens nothing, and a company deleted under a live session leaves it
// nothing. No API shows a link row, ages one or deletes a company, so this file stays
// single-daemon-only (vitest.cluster.config.ts); the rest of the portal's links and sessions is in
// portal-links.test.ts, their isolation in portal-isolation.test.ts, which run against a cluster too.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { enterPortal, portalLink, withoutToken } from '../helpers/portal-session.js';
import { newCompany } from '../helpers/seed.js';

let gw: TestGateway;
let company: number;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  gw = await startTestGateway();
  company = await newCompany(gw, { name: 'Linked' });
});
afterAll(async () => {
  await gw?.close();
});

describe('portal link rows', () => {
  it("stores a link's token as its digest alone", async () => {
    const token = await portalLink(gw, company);
    const rows = gw.store.db.prepare('SELECT * FROM portal_links').all();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows).toEqual([
      expect.objectContaining({ token_sha256: sha256(token), company_id: company, used_at: null }),
    ]);
  });

  it('opens nothing with an expired link', async () => {
    const stale = await portalLink(gw, company);
    const aged = gw.store.db
      .prepare('UPDATE portal_links SET expires_at = ? WHERE token_sha256 = ?')
      .run(Date.now() - 1, sha256(stale));
    expect(aged.changes).toBe(1);
    const res = await withoutToken(gw, 'POST', '/portal/session', { json: { token: stale } });
    expect(expectErrorShape(res, 401, 'unauthorized')[0]!.detail).toMatch(/used already or expired/);
  });

  it('ends with its company: a deleted company leaves its sessions nothing', async () => {
    const doomed = await newCompany(gw, { name: 'Doomed' });
    const session = await enterPortal(gw, await portalLink(gw, doomed));
    const cookie = { cookie: session.cookie };
    expect((await withoutToken(gw, 'GET', '/portal/api/webhooks', { headers: cookie })).status).toBe(200);
    expect(gw.store.db.prepare('DELETE FROM companies WHERE id = ?').run(doomed).changes).toBe(1);
    expectErrorShape(await withoutToken(gw, 'GET', '/portal/api/webhooks', { headers: cookie }), 401, 'unauthorized');
    expect((await withoutToken(gw, 'GET', '/portal', { headers: cookie })).status).toBe(303);
  });
});
