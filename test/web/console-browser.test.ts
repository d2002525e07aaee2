import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { cloudChannel, postCloudText, type CloudChannel } from '../helpers/cloud-texts.js';
import { screenshot, watchedPage } from '../helpers/pages.js';
import { ADMIN_TOKEN, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { startReceiver } from '../helpers/receiver.js';
import { newCompany, newEndpoint } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

// The operator console in a real headless Chromium against a real gateway: log in, find a failed
// delivery, replay it and see the webhook arrive, bulk-replay to completion, disable and enable an
// endpoint, watch the pipeline (an endpoint's options and held deliveries are in
// console-endpoint-options.test.ts). Every page must run without a script error or a CSP
// violation. The events come from the API and signed provider callbacks, and every assertion reads
// the browser, the admin API or the receiver, so it runs against a 3-shard cluster too
// (vitest.cluster.config.ts).

let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: () => string[];
let failing = true;
let acme: number;
let globex: number;
let acmeEndpoint: number;
let acmeChannel: CloudChannel;
let globexChannel: CloudChannel;
const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

/** A company whose one endpoint (every event) is the receiver, then its cloud channel: the endpoint gets the channel's auth.create. */
async function companyToReceiver(name: string): Promise<{ channel: CloudChannel; endpoint: number }> {
  const companyId = await newCompany(gw, { name });
  const endpoint = await newEndpoint(gw, companyId, { url: receiver.url, active: true });
  return { channel: await cloudChannel(gw, companyId), endpoint: endpoint.id };
}

/** A change of the note of Acme's one conversation: a conversation.update. */
async function noteAcmeConversation(note: string): Promise<void> {
  const listed = await gw.request('GET', `/api/p2/conversations?company_id=${acme}`);
  expect(listed.body.conversations, listed.text).toHaveLength(1);
  const path = `/p1/companies/${acme}/conversations/${listed.body.conversations[0].id}/note`;
  const changed = await gw.request('PUT', path, { json: { note } });
  expect(changed.status, changed.text).toBe(200);
}

beforeAll(async () => {
  // One attempt per delivery: an answer of 500 fails it for good at once.
  gw = await startTestGateway({ ...TO_RECEIVERS, GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0' });
  receiver = await startReceiver(
    () => [],
    () => (failing ? { status: 500, body: `<h1>oops</h1>${HOSTILE}` } : { status: 204 }),
  );
  ({ channel: acmeChannel, endpoint: acmeEndpoint } = await companyToReceiver('Acme'));
  ({ channel: globexChannel } = await companyToReceiver('Globex'));
  [acme, globex] = [acmeChannel.companyId, globexChannel.companyId];
  // Acme: auth.create, conversation.create, message.create (hostile text), conversation.update,
  // message.create, conversation.update. Globex: auth.create, conversation.create, message.create.
  await postCloudText(gw, acmeChannel, 'wamid.acme.1', HOSTILE);
  await noteAcmeConversation('first note');
  await postCloudText(gw, acmeChannel, 'wamid.acme.2', 'hello 2');
  await noteAcmeConversation('second note');
  await postCloudText(gw, globexChannel, 'wamid.globex.1', 'hello globex');
  await eventually(
    'nine failed deliveries',
    async () => (await gw.admin('GET', '/admin/deliveries?status=failed')).body.deliveries.length === 9,
  );
  const failedOf = async (company: number) =>
    (await gw.admin('GET', `/admin/deliveries?company_id=${company}&status=failed`)).body.deliveries
      .map((d: { event_type: string }) => d.event_type)
      .reverse();
  expect(await failedOf(acme)).toEqual([
    'auth.create',
    'conversation.create',
    'message.create',
    'conversation.update',
    'message.create',
    'conversation.update',
  ]);
  expect(await failedOf(globex)).toEqual(['auth.create', 'conversation.create', 'message.create']);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  ({ page, problems } = await watchedPage(context));
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await receiver?.close();
});

async function go(hash: string): Promise<void> {
  await page.goto(`${gw.baseUrl}/console${hash}`);
}

describe('the operator console in Chromium', () => {
  it('serves a small first page: the login, offline, in a few kilobytes', async () => {
    const fresh = await watchedPage(await browser.newContext());
    await fresh.page.goto(`${gw.baseUrl}/console`);
    await fresh.page.waitForLoadState('networkidle');
    expect(fresh.page.url()).toBe(`${gw.baseUrl}/console/login`);
    expect(await fresh.page.getByRole('heading', { level: 1 }).textContent()).toBe('Gateway console');
    const requests = await fresh.page.evaluate<string[]>("performance.getEntriesByType('resource').map((e) => e.name)");
    // Its styles and scripts (the favicon may come too), all from the gateway itself.
    expect(requests).toEqual(
      expect.arrayContaining(
        ['/assets/base.css', '/assets/ui.js', '/console/assets/login.js'].map((p) => gw.baseUrl + p),
      ),
    );
    expect(requests.every((url) => url.startsWith(gw.baseUrl))).toBe(true);
    // The login page with its styles and scripts, headers included, over gzip.
    console.info(`first page (/console → /console/login): ${fresh.transferred()} bytes transferred`);
    expect(fresh.transferred()).toBeGreaterThan(2_000);
    expect(fresh.transferred()).toBeLessThan(16_000);
    expect(fresh.problems()).toEqual([]);
    await screenshot(fresh.page, 'console-login', false);
    await fresh.page.context().close();
  });

  it('refuses a wrong token, and logs in with the keyboard alone', async () => {
    await go('');
    await page.keyboard.type('not-the-token');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#status')).toBe('That is not the admin token.');
    await page.getByLabel('Admin token').fill('');
    await page.keyboard.type(ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#deliveries');
    expect(page.url()).toBe(`${gw.baseUrl}/console#/deliveries`);
    const cookies = await context.cookies();
    expect(cookies).toEqual([
      expect.objectContaining({ name: 'gw_console', httpOnly: true, sameSite: 'Strict', path: '/' }),
    ]);
    expect(await page.evaluate('document.cookie')).toBe('');
  });

  it('filters the deliveries by company and status, and pages through them', async () => {
    await go(`#/deliveries?company_id=${acme}&status=failed`);
    await page.waitForSelector('#deliveries');
    expect(await page.locator('#deliveries tbody tr').count()).toBe(6);
    await page.getByLabel('Event type').selectOption('conversation.update');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(2);
    expect(page.url()).toContain('event_type=conversation.update');
    await screenshot(page, 'console-deliveries');

    await go('#/deliveries?status=failed');
    await page.waitForSelector('#deliveries');
    expect(await page.locator('#deliveries tbody tr').count()).toBe(9);
  });

  it('shows a failed delivery with its attempts and its event body as text, replays it, and the webhook arrives', async () => {
    const [delivery] = (
      await gw.admin('GET', `/admin/deliveries?company_id=${acme}&event_type=message.create&status=failed&limit=200`)
    ).body.deliveries.slice(-1);
    await go('#/deliveries');
    await page.getByRole('searchbox').fill(delivery.event_id);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#deliveries tbody tr').count()).toBe(1);
    await page.click(`a[href="#/deliveries/${delivery.id}"]`);
    await page.waitForSelector('#event-body');
    const body = JSON.parse((await page.textContent('#event-body'))!);
    expect(body.object.message).toBe(HOSTILE);
    expect(await page.locator('#attempts tbody tr').count()).toBe(1);
    expect(await page.textContent('#attempts tbody tr')).toContain('500');
    expect(await page.textContent('#attempts tbody tr')).toContain(`<h1>oops</h1>${HOSTILE}`.slice(0, 60));
    // Untrusted text stays text: nothing of it became an element, nothing of it ran.
    expect(await page.locator('main img, main script, main h1:has-text("oops")').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await screenshot(page, 'console-delivery');

    failing = false;
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Replay now' }).click();
    await expect.poll(() => page.textContent('#status'), { timeout: 15_000 }).toBe('Attempt 2: delivered (204).');
    expect(receiver.received.slice(before).map((r) => r.id)).toEqual([delivery.event_id]);
    expect(await page.locator('#attempts tbody tr').count()).toBe(2);
    expect(await page.textContent('dl.facts')).toContain('delivered');
  });

  it('replays every failed delivery of a company in bulk, with the progress to completion', async () => {
    const before = receiver.received.length;
    await go(`#/deliveries?company_id=${acme}&status=failed`);
    await page.getByRole('link', { name: 'Replay everything matching…' }).click();
    await page.waitForSelector('#bulk-replay');
    expect(await page.getByLabel('Company').inputValue()).toBe(String(acme));
    await page.getByRole('button', { name: 'Start replay' }).click();
    await page.waitForSelector('#replay-progress');
    await expect.poll(() => page.textContent('#replay-counts')).toBe('5 of 5 deliveries replayed');
    await expect.poll(() => page.textContent('#status')).toBe('The replay is completed: 5 of 5 replayed.');
    expect(
      await page.evaluate(
        "[document.getElementById('replay-progress').value, document.getElementById('replay-progress').max]",
      ),
    ).toEqual([5, 5]);
    expect(await page.getByRole('button', { name: 'Cancel' }).isDisabled()).toBe(true);
    await eventually('five webhooks arrived', () => receiver.received.length === before + 5);
    await screenshot(page, 'console-bulk-replay');
    expect((await gw.admin('GET', `/admin/deliveries?company_id=${acme}&status=failed`)).body.deliveries).toEqual([]);
    expect(
      (await gw.admin('GET', `/admin/deliveries?company_id=${globex}&status=failed`)).body.deliveries,
    ).toHaveLength(3);
  });

  it("disables and enables a company's endpoint, and recovers what failed meanwhile", async () => {
    await go(`#/endpoints?company_id=${acme}`);
    const panel = page.locator(`[data-endpoint="${acmeEndpoint}"]`);
    await panel.waitFor();
    expect(await panel.textContent()).toContain('active');
    await panel.getByLabel('Reason').fill('receiver moves to a new host');
    await panel.getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => page.textContent('#status')).toBe(`Endpoint ${acmeEndpoint} is disabled.`);
    await expect.poll(() => panel.textContent()).toContain('receiver moves to a new host');
    expect((await gw.admin('GET', `/admin/companies/${acme}/endpoints`)).body.endpoints[0]).toMatchObject({
      active: false,
      disabled_reason: 'receiver moves to a new host',
    });
    await screenshot(page, 'console-endpoints');

    // While it is down, its events are held; enabling it sends them, and the operator replays what failed before.
    await postCloudText(gw, acmeChannel, 'wamid.acme.down', 'while down');
    await panel.getByRole('button', { name: 'Enable' }).click();
    await expect.poll(() => page.textContent('#status')).toBe(`Endpoint ${acmeEndpoint} is enabled.`);
    expect((await gw.admin('GET', `/admin/companies/${acme}/endpoints`)).body.endpoints[0].active).toBe(true);
    await panel.getByRole('button', { name: 'Replay failed deliveries' }).click();
    await page.waitForSelector('#replay-progress');
    await expect.poll(() => page.locator('#replay-counts').textContent()).toMatch(/^\d+ of \d+ deliveries replayed$/);
    await expect.poll(() => page.textContent('#status')).toMatch(/^The replay is completed/);
  });

  it('shows the pipeline live: outbox and stream lag, delivered per second and the error rate of the hour', async () => {
    // Every delivery the tests before set off has ended (the enable's webhook.enabled, the event held
    // while the endpoint was down): the page and the admin API read the same error rate.
    await eventually(
      'no delivery on its way or held',
      async () =>
        (await gw.admin('GET', '/admin/deliveries?status=pending')).body.deliveries.length === 0 &&
        (await gw.admin('GET', '/admin/deliveries?status=held')).body.deliveries.length === 0,
    );
    await go('#/pipeline');
    await page.waitForSelector('#streams');
    const pipeline = (await gw.admin('GET', '/admin/pipeline')).body;
    expect(await page.textContent('#outbox-pending')).toBe('0');
    expect(await page.textContent('#error-rate')).toBe(`${(pipeline.attempts.error_rate * 100).toFixed(1)} %`);
    expect(await page.locator('#streams tbody tr').count()).toBe(pipeline.streams.length);
    expect(await page.locator('svg.chart rect').count()).toBeGreaterThan(0);
    // A new failure shows within the refresh interval, without reloading.
    failing = true;
    const shownBefore = await page.textContent('#error-rate');
    await postCloudText(gw, globexChannel, 'wamid.globex.2', 'hello again');
    await expect.poll(() => page.textContent('#error-rate'), { timeout: 10_000 }).not.toBe(shownBefore);
    await screenshot(page, 'console-pipeline');
  });

  it('reads on a phone: no page is wider than the screen', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await phone.addCookies(await context.cookies());
    const { page: small, problems: smallProblems } = await watchedPage(phone);
    for (const hash of ['#/deliveries', `#/endpoints?company_id=${acme}`, '#/pipeline', '#/replays']) {
      await small.goto(`${gw.baseUrl}/console${hash}`);
      await small.waitForSelector('main h1');
      await small.waitForLoadState('networkidle');
      expect(await small.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), hash).toBe(true);
    }
    await small.goto(`${gw.baseUrl}/console#/deliveries`);
    await small.waitForSelector('#deliveries');
    await screenshot(small, 'console-phone', false);
    expect(smallProblems()).toEqual([]);
    await phone.close();
  });

  it('logs out: the session ends and the console sends the browser back to the login', async () => {
    await go('#/deliveries');
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${gw.baseUrl}/console/login`);
    await page.goto(`${gw.baseUrl}/console`);
    expect(page.url()).toBe(`${gw.baseUrl}/console/login`);
    expect(problems()).toEqual([]);
  });
});
