import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { watchedPage } from '../helpers/pages.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { insertCompany } from '../helpers/pipeline.js';

// The portal shows an endpoint's delivery options (docs/api.md, "Endpoint options") as text: the
// company's own input is never markup.

let gw: TestGateway;
let browser: Browser;
let page: Page;
let problems: () => string[];
let company: number;
const MARKUP = '<img src=x onerror="window.pwned=1">';

beforeAll(async () => {
  gw = await startTestGateway();
  company = insertCompany(gw.store, 'Options Ltd');
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
    const rotated = gw.store.webhooks.find(company, hook.id as number)!;
    expect(rotated.secret).not.toBe(hook.secret);
    const shownKey = await page.textContent('#public-key-value');
    expect(shownKey).toMatch(/^whpk_/);
    expect(shownKey).not.toBe(hook.public_key);
    expect(await page.locator('#secret-value').count()).toBe(0);
    expect(await page.content()).not.toContain(rotated.secret.slice(5));
    expect(problems()).toEqual([]);
  });
});
