// Auths as the hosted service's pages describe them, through the real HTTP API with the sandbox as
// the provider and a real webhook receiver (signatures verified with standardwebhooks).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/wait.js';
import { startCompatGateway, type CompatGateway } from './harness.js';

let c: CompatGateway;
beforeAll(async () => {
  c = await startCompatGateway();
});
afterAll(() => c.close());

const auths = (company: number) => `/api/p2/companies/${company}/auths`;
const DAY = 86_400_000;
const isoNear = (ms: number) => (value: string) => Math.abs(Date.parse(value) - ms) < 60_000;

describe('pact-im/api-doc content/ru/v2/auths/index.md (the auth object)', () => {
  it('carries phone_number, username, sync_messages_at and pages with their documented types', async () => {
    const company = await c.company('Auth object');
    const created = await c.api('POST', auths(company), { provider: 'chat_a', phone_number: '79161234567' });
    expect(created.status).toBe(201);
    expect(created.body.auth).toMatchObject({
      provider: 'chat_a',
      phone_number: '79161234567',
      username: null,
      sync_messages_at: null,
      pages: null,
    });
    expect(Number.isInteger(created.body.auth.id) && Number.isInteger(created.body.auth.company_id)).toBe(true);
    const listed = await c.api('GET', auths(company));
    expect(listed.body.auths[0]).toEqual((await c.api('GET', `${auths(company)}/${created.body.auth.id}`)).body.auth);
    await eventually('auth.create received', () =>
      c.hooks(company).some((h) => h.type === 'auth' && h.event === 'create'),
    );
    expect(c.hooks(company)[0]!.object).toMatchObject({
      phone_number: '79161234567',
      username: null,
      sync_messages_at: null,
      pages: null,
    });
  });
});

describe('pact-im/api-doc content/ru/v2/auths/create-auth.md (sync_period)', () => {
  it('sync_period=week: sync_messages_at a week back, and once connected the history of that week arrives, nothing older', async () => {
    const company = await c.company('Sync week');
    const created = await c.api('POST', auths(company), { provider: 'chat_a', sync_period: 'week' });
    expect(created.status).toBe(201);
    expect(isoNear(Date.now() - 7 * DAY)(created.body.auth.sync_messages_at)).toBe(true);
    await eventually(
      'connected and synced',
      () => c.hooks(company).filter((h) => h.type === 'message').length >= 2,
      10_000,
    );
    const enabled = c.hooks(company).find((h) => h.type === 'auth' && h.object.state === 'enabled')!;
    // The account the provider reported once the QR was scanned.
    expect(enabled.object).toMatchObject({
      phone_number: '79000000000',
      username: 'sandbox.account',
      sync_messages_at: created.body.auth.sync_messages_at,
    });
    // The history comes in the batch that connected the auth: all of it is stored with the `enabled`.
    await c.allDelivered(company);
    const history = c
      .hooks(company)
      .filter((h) => h.type === 'message')
      .map((h) => h.object);
    expect(history.map((m) => m.message)).toEqual(['History message 1', 'History message 2']);
    for (const message of history)
      expect(Date.parse(message.external_created_at)).toBeGreaterThanOrEqual(
        Date.parse(created.body.auth.sync_messages_at),
      );
  });

  it('sync_period=day keeps only the last day; without sync_period nothing is synchronized', async () => {
    const day = await c.company('Sync day');
    await c.api('POST', auths(day), { provider: 'chat_d', sync_period: 'day' });
    const none = await c.company('Sync none');
    await c.api('POST', auths(none), { provider: 'chat_d' });
    await eventually(
      'both connected',
      () => [day, none].every((id) => c.hooks(id).some((h) => h.type === 'auth' && h.object.state === 'enabled')),
      10_000,
    );
    // The history comes in the batch that connected the auth: all of it is stored with the `enabled`.
    await c.allDelivered(day);
    await c.allDelivered(none);
    expect(
      c
        .hooks(day)
        .filter((h) => h.type === 'message')
        .map((h) => h.object.message),
    ).toEqual(['History message 1']);
    expect(c.hooks(none).filter((h) => h.type === 'message')).toEqual([]);
  });

  it('refuses sync_period for providers without history sync, beside sync_messages_from, and outside day|week|month', async () => {
    const company = await c.company('Sync refused');
    for (const body of [
      { provider: 'chat_b', token: '123:abc', sync_period: 'day' },
      { provider: 'chat_a', sync_period: 'day', sync_messages_from: new Date().toISOString() },
      { provider: 'chat_a', sync_period: 'year' },
    ]) {
      const res = await c.api('POST', auths(company), body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors.map((e: { source?: { pointer: string } }) => e.source?.pointer)).toEqual(['/sync_period']);
    }
    expect((await c.api('GET', auths(company))).body.auths).toEqual([]);
  });
});

describe('pact-im/api-doc content/en/v2/auths/confirm-auth.md (OAuth)', () => {
  it.each(['market_a', 'chat_a_business', 'social_c_business', 'social_b'])(
    '%s created by provider alone answers oauth_provider_url; following it enables the auth',
    async (provider) => {
      const company = await c.company(`OAuth ${provider}`);
      const created = await c.api('POST', auths(company), { provider });
      expect(created.status).toBe(201);
      expect(created.body.auth).toMatchObject({ provider, state: 'unconfirmed', confirmation: 'oauth' });
      const url = created.body.auth.oauth_provider_url as string;
      expect(url).toMatch(new RegExp(`^${c.gw.baseUrl}/callbacks/${provider}/${created.body.auth.id}/oauth\\?state=`));
      await eventually('auth.update with the address', () =>
        c.hooks(company).some((h) => h.event === 'update' && h.object.oauth_provider_url === url),
      );

      const wrong = await fetch(url.replace(/state=[^&]+/, 'state=not-the-state'));
      expect(wrong.status).toBe(404);
      const followed = await fetch(url);
      expect([followed.status, await followed.json()]).toEqual([200, { status: 'ok', state: 'enabled' }]);
      expect((await c.api('GET', `${auths(company)}/${created.body.auth.id}`)).body.auth).toMatchObject({
        state: 'enabled',
        username: 'sandbox.account',
      });
      await eventually('auth.update enabled', () =>
        c.hooks(company).some((h) => h.event === 'update' && h.object.state === 'enabled'),
      );
      expect((await fetch(url)).status).toBe(409);
    },
  );

  it('social_a in two steps: the first authorization lists the groups, each with its own address; following one connects it', async () => {
    const company = await c.company('OAuth groups');
    const created = await c.api('POST', auths(company), { provider: 'social_a', sync_period: 'month' });
    const id = created.body.auth.id as number;
    expect(await (await fetch(created.body.auth.oauth_provider_url)).json()).toEqual({
      status: 'ok',
      state: 'pending',
    });
    await eventually('the groups', () => c.hooks(company).some((h) => Array.isArray(h.object.pages)));
    const pages = c.hooks(company).find((h) => Array.isArray(h.object.pages))!.object.pages as {
      id: number;
      auth_id: number;
      company_id: number;
      external_id: string;
      name: string;
      enabled: boolean;
      oauth_provider_url: string;
    }[];
    expect(pages.map((p) => [typeof p.id, p.auth_id, p.company_id, p.external_id, p.enabled])).toEqual([
      ['number', id, company, 'sbx-page-1', false],
      ['number', id, company, 'sbx-page-2', false],
    ]);
    const connected = await fetch(pages[1]!.oauth_provider_url);
    expect(await connected.json()).toEqual({ status: 'ok', state: 'enabled' });
    const auth = (await c.api('GET', `${auths(company)}/${id}`)).body.auth;
    expect(auth.state).toBe('enabled');
    expect(auth.pages.map((p: { external_id: string; enabled: boolean }) => [p.external_id, p.enabled])).toEqual([
      ['sbx-page-1', false],
      ['sbx-page-2', true],
    ]);
    await eventually(
      'month of history',
      () => c.hooks(company).filter((h) => h.type === 'message').length === 3,
      10_000,
    );
  });
});
