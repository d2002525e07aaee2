import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { cloudChannel, postCloudText, type CloudChannel } from '../helpers/cloud-texts.js';
import { watchedPage } from '../helpers/pages.js';
import { ADMIN_TOKEN, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { startReceiver } from '../helpers/receiver.js';
import { newCompany, newEndpoint } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

// The console's endpoints page in a real headless Chromium against a real gateway: an endpoint's
// options (ordering, rate limit, retry schedule, payload filter), its held deliveries and their
// discard. The events come from signed provider callbacks and the API, and every assertion reads
// the browser or the admin API, so it runs against a 3-shard cluster too (vitest.cluster.config.ts).

let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let browser: Browser;
let page: Page;
let problems: () => string[];
let acme: number;
let globex: number;
let acmeEndpoint: number;
let acmeChannel: CloudChannel;
const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

beforeAll(async () => {
  gw = await startTestGateway(TO_RECEIVERS);
  receiver = await startReceiver(() => []);
  acme = await newCompany(gw, { name: 'Acme' });
  acmeEndpoint = (await newEndpoint(gw, acme, { url: receiver.url, active: true })).id;
  acmeChannel = await cloudChannel(gw, acme);
  // The conversation the held messages go to exists already: they are its message.create events alone.
  await postCloudText(gw, acmeChannel, 'wamid.acme.1', 'hello');
  globex = await newCompany(gw, { name: 'Globex' });
  browser = await launchChromium();
  ({ page, problems } = await watchedPage(await browser.newContext({ viewport: { width: 1280, height: 860 } })));
  await page.goto(`${gw.baseUrl}/console/login`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#deliveries');
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await receiver?.close();
});

describe("an endpoint's options in the console", () => {
  it("shows an endpoint's options and held deliveries, and discards what is held", async () => {
    // What the endpoint was sent so far (the channel's and the first message's events) ends first: a
    // delivery still on its way when the endpoint is disabled would be held too.
    const ofEndpoint = async (status: 'pending' | 'held'): Promise<{ id: string; event_id: string }[]> =>
      (await gw.admin('GET', `/admin/deliveries?endpoint_id=${acmeEndpoint}&status=${status}`)).body.deliveries;
    await eventually(
      'no delivery of the endpoint on its way or held',
      async () => (await ofEndpoint('pending')).length === 0 && (await ofEndpoint('held')).length === 0,
    );
    expect(
      (
        await gw.admin('POST', `/admin/companies/${acme}/endpoints/${acmeEndpoint}/disable`, {
          reason: 'held for the test',
        })
      ).status,
    ).toBe(200);
    await postCloudText(gw, acmeChannel, 'wamid.acme.held.1', 'held 1');
    await postCloudText(gw, acmeChannel, 'wamid.acme.held.2', 'held 2');
    await eventually('two events held', async () => (await ofEndpoint('held')).length === 2);
    // Exactly the two messages' events, and nothing else, are held.
    const heldDeliveries = await ofEndpoint('held');
    const heldEvents = await Promise.all(
      heldDeliveries.map(async (d) => (await gw.admin('GET', `/admin/deliveries/${d.id}`)).body.event),
    );
    expect(heldEvents.map((e) => [e.type, e.event, e.object.message]).sort()).toEqual([
      ['message', 'create', 'held 1'],
      ['message', 'create', 'held 2'],
    ]);
    const held = heldDeliveries.map((d) => d.event_id);
    expect((await gw.admin('GET', `/admin/companies/${acme}/endpoints`)).body.endpoints[0].held).toBe(2);
    await page.goto(`${gw.baseUrl}/console#/endpoints?company_id=${acme}`);
    const panel = page.locator(`[data-endpoint="${acmeEndpoint}"]`);
    await panel.waitFor();
    const facts = await panel.locator('dl').textContent();
    expect(facts).toContain('Orderingdefault');
    expect(facts).toContain('Rate limitnone');
    expect(facts).toContain('Retry schedulegateway-wide');
    expect(facts).toContain('Payload filternone');
    const link = panel.getByRole('link', { name: '2', exact: true });
    expect(await link.getAttribute('href')).toBe(
      `#/deliveries?company_id=${acme}&endpoint_id=${acmeEndpoint}&status=held`,
    );

    await panel.getByRole('button', { name: 'Discard 2 held' }).click();
    await expect
      .poll(() => page.textContent('#status'))
      .toBe(`2 held deliveries of endpoint ${acmeEndpoint} discarded.`);
    await expect.poll(() => panel.getByRole('button', { name: /^Discard/ }).count()).toBe(0);
    const failed = (
      await gw.admin('GET', `/admin/deliveries?endpoint_id=${acmeEndpoint}&status=failed`)
    ).body.deliveries.map((d: { event_id: string }) => d.event_id);
    expect(failed).toEqual(expect.arrayContaining(held));
    // Enabled again, the endpoint hears of it (webhook.enabled), and that attempt ends.
    const enabledEnded = async () =>
      (
        await gw.admin('GET', `/admin/deliveries?endpoint_id=${acmeEndpoint}&event_type=webhook.enabled`)
      ).body.deliveries.filter((d: { status: string }) => d.status !== 'pending').length;
    const before = await enabledEnded();
    expect((await gw.admin('POST', `/admin/companies/${acme}/endpoints/${acmeEndpoint}/enable`)).status).toBe(200);
    await eventually('the webhook.enabled attempt', async () => (await enabledEnded()) === before + 1);
  });

  it("shows an endpoint's own retry schedule and payload filter, the filter's values as text", async () => {
    const created = await gw.request('POST', `/api/p2/companies/${globex}/webhooks`, {
      json: {
        url: 'https://crm.example.com/filtered',
        retry_schedule: [30, 120],
        filter: {
          or: [
            { path: 'object.text', op: 'eq', value: HOSTILE },
            { path: 'type', op: 'ne', value: 'x' },
          ],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const listed = await gw.admin('GET', `/admin/companies/${globex}/endpoints`);
    expect(
      listed.body.endpoints.find((e: { endpoint_id: number }) => e.endpoint_id === created.body.webhook.id),
    ).toMatchObject({ retry_schedule: [30, 120], filter: created.body.webhook.filter });
    await page.goto(`${gw.baseUrl}/console#/endpoints?company_id=${globex}`);
    const panel = page.locator(`[data-endpoint="${String(created.body.webhook.id)}"]`);
    await panel.waitFor();
    const facts = await panel.locator('dl').textContent();
    expect(facts).toContain('Retry schedule3 attempts: retries after 30 s, 2 min');
    expect(facts).toContain(`Payload filterobject.text = ${JSON.stringify(HOSTILE)} or type ≠ "x"`);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(problems()).toEqual([]);
  });
});
