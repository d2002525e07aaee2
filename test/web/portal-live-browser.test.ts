import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { cloudChannel, postCloudText, type CloudChannel } from '../helpers/cloud-texts.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { watchedPage } from '../helpers/pages.js';
import { newCompany } from '../helpers/seed.js';
import { openSse, type OpenSse } from '../helpers/sse.js';
import { eventually } from '../helpers/wait.js';

// The portal's live page in a real headless Chromium: an event of a provider callback posted
// over HTTP appears on it as it happens, read by the portal session (no API token in the page);
// hostile text in the message is shown as text, and another company's events never appear. Through
// HTTP alone, so it runs against a cluster too: the company's cap on open streams shows whether the
// page holds one.

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>&amp;';

let gw: TestGateway;
let browser: Browser;
let page: Page;
let problems: () => string[];

/** A company through the API, with a cloud channel whose callbacks the test posts. */
const cloudCompany = async (name: string): Promise<CloudChannel> => cloudChannel(gw, await newCompany(gw, { name }));

/** Open live streams a company may hold at once (docs/api.md, "The live event stream"). */
const STREAMS_PER_COMPANY = 5;

/**
 * How many live streams of Acme the API token opens before the company's cap answers 429: the cap
 * less the streams already open. Each is closed again before this answers.
 */
async function streamsLeft(): Promise<number> {
  const opened: OpenSse[] = [];
  try {
    while (opened.length < STREAMS_PER_COMPANY) {
      const stream = await openSse(gw.baseUrl, `/api/p2/companies/${acme.companyId}/events/stream`, {
        'x-private-api-token': gw.token,
      });
      if (stream.status !== 200) {
        stream.close();
        expect(stream.status).toBe(429);
        break;
      }
      opened.push(stream);
    }
    return opened.length;
  } finally {
    for (const stream of opened) stream.close();
  }
}

let acme: CloudChannel;
let globex: CloudChannel;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  acme = await cloudCompany('Acme Live');
  globex = await cloudCompany('Globex Live');
  const res = await gw.request('POST', `/api/p2/companies/${acme.companyId}/portal_sessions`);
  const linkUrl = (res.body as { portal_session: { url: string } }).portal_session.url;
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  ({ page, problems } = await watchedPage(context));
  await page.goto(linkUrl);
  await page.waitForURL(`${gw.baseUrl}/portal#/endpoints`);
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

describe("the portal's live events page in Chromium", () => {
  it('shows an event of a callback as it happens, hostile text as text, and only its own company', async () => {
    await page.getByRole('link', { name: 'Live events' }).click();
    await page.waitForURL(`${gw.baseUrl}/portal#/live`);
    await eventually(
      'the page is connected',
      async () => (await page.textContent('#live-state')) === 'Connected: new events appear below.',
    );
    // The page holds one of Acme's streams.
    expect(await streamsLeft()).toBe(STREAMS_PER_COMPANY - 1);

    await postCloudText(gw, globex, 'wamid.live.globex', 'globex secret plans');
    await postCloudText(gw, acme, 'wamid.live.acme', HOSTILE);
    const row = page.locator('#live-events tr[data-event]', { hasText: 'message.create' });
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells[1]).toBe('message.create');
    expect(cells[2]).toMatch(/^evt_/);
    const object = JSON.parse(cells[3]!) as { message: string; company_id: number };
    expect(object.message).toBe(HOSTILE);
    expect(object.company_id).toBe(acme.companyId);
    // The markup in the text made no element, and nothing of it ran.
    expect(await page.locator('#live-events img, #live-events script').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    // Globex's event, posted first, never reached Acme's page.
    expect(await page.locator('#live-events').textContent()).not.toContain('globex');
    const ids = await page
      .locator('#live-events tr[data-event]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event')));
    expect(ids).toHaveLength(2); // conversation.create and message.create of Acme
    expect(new Set(ids).size).toBe(2);

    // Leaving the page ends its stream.
    await page.getByRole('link', { name: 'Endpoints' }).click();
    await eventually('the stream closed', async () => (await streamsLeft()) === STREAMS_PER_COMPANY);
    expect(problems()).toEqual([]);
  });
});
