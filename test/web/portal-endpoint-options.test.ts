import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { watchedPage } from '../helpers/pages.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

// The portal shows an endpoint's delivery options (docs/api.md, "Endpoint options") as text: the
// company's own input is never markup. Through HTTP alone, so it runs against a cluster too.

let gw: TestGateway;
let browser: Browser;
let page: Page;
let problems: () => string[];
let company: number;
const MARKUP = '<img src=x onerror="window.pwned=1">';

beforeAll(async () => {
  gw = await startTestGateway();
  const created = await gw.request('POST', '/p1/companies', { json: { name: 'Options Ltd' } });
  expect(created.status, created.text).toBe(201);
  company = created.body.data.external_id as number;
  browser = await launchChromium();
  ({ page, problems } = await watchedPage(await browser.newContext()));
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

async function createEndpoint(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await gw.request('POST', `/api/p2/companies/${company}/webhooks`, {
    json: { url: 'https://crm.example.com/hooks', ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.webhook as Record<string, unknown>;
}

async function openPortal(): Promise<void> {
  const res = await gw.request('POST', `/api/p2/companies/${company}/portal_sessions`);
  await page.goto((res.body as { portal_session: { url: string } }).portal_session.url);
  await page.waitForSelector('[data-endpoint]');
}

/**
 * What in `html` could be a signing key: a `whsk_` prefix, or base64 of 32 bytes (43 characters
 * and its padding) that is not one of the public keys shown.
 */
function privateKeyLike(html: string, publicKeys: string[]): string[] {
  const shown = new Set(publicKeys.map((key) => key.replace(/^whpk_/, '')));
  const prefixed = html.match(/whsk_\S*/g) ?? [];
  const keys = (html.match(/(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{43}=?(?![A-Za-z0-9+/=])/g) ?? []).filter(
    (run) => !shown.has(run),
  );
  return [...prefixed, ...keys];
}

const facts = (id: unknown) => page.locator(`[data-endpoint="${String(id)}"] dl.facts`);

describe('endpoint options in the portal', () => {
  it('shows a payload filter as one line of text, markup in its values left as text', async () => {
    const hook = await createEndpoint({
      filter: {
        and: [
          { path: 'object.text', op: 'eq', value: MARKUP },
          {
            or: [
              { path: 'object.channel_id', op: 'in', value: [3, 4] },
              { path: 'object.urgent', op: 'exists' },
            ],
          },
        ],
      },
    });
    await openPortal();
    expect(await facts(hook.id).textContent()).toContain(
      `Payload filter${`object.text = ${JSON.stringify(MARKUP)} and (object.channel_id in [3,4] or object.urgent exists)`}`,
    );
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(problems()).toEqual([]);
  });

  it('shows a retry schedule of its own, and nothing for an endpoint without one', async () => {
    const own = await createEndpoint({ retry_schedule: [30, 120, 7200] });
    const plain = await createEndpoint({});
    await openPortal();
    expect(await facts(own.id).textContent()).toContain('Retry schedule4 attempts: retries after 30 s, 2 min, 2 h');
    expect(await facts(plain.id).textContent()).not.toContain('Retry schedule');
  });

  it("shows an ed25519 endpoint's public key, never its private key, and the new public key after a rotation", async () => {
    const hook = await createEndpoint({ signing_algorithm: 'ed25519' });
    await openPortal();
    const own = page.locator(`[data-endpoint="${String(hook.id)}"]`);
    expect(await own.locator('[data-public-key]').textContent()).toBe(hook.public_key);
    expect(await facts(hook.id).textContent()).toContain('Signed withed25519 (Standard Webhooks v1a)');
    expect(await page.content()).not.toContain(String(hook.secret).slice(5));

    await own.getByRole('button', { name: 'Rotate secret' }).click();
    await page.waitForSelector('#public-key-value');
    const shownKey = await page.textContent('#public-key-value');
    expect(shownKey).toMatch(/^whpk_/);
    expect(shownKey).not.toBe(hook.public_key);
    // The key shown is the endpoint's public key now, so the private key changed with it.
    const now = await gw.request('GET', `/api/p2/companies/${company}/webhooks/${String(hook.id)}`);
    expect(now.body.webhook.public_key).toBe(shownKey);
    expect(await page.locator('#secret-value').count()).toBe(0);
    // No API answers the new private key: the page holds no key but the public ones, whatever its form.
    expect(privateKeyLike(await page.content(), [String(hook.public_key), shownKey!])).toEqual([]);
    expect(problems()).toEqual([]);
  });
});
