import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { cloudChannel, postCloudText } from '../helpers/cloud-texts.js';
import { screenshot, watchedPage } from '../helpers/pages.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { startReceiver } from '../helpers/receiver.js';
import { endpointAbove, newCompanyOnShard, newEndpoint } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

// The company portal in a real headless Chromium: a link made with the API token opens it; the
// company adds an endpoint, sends it a test event, changes its filter, rotates its secret,
// disables it, reads its event log and replays; another company's ids lead nowhere. Seeded and
// read back through HTTP alone, so it runs against a cluster too: there the two companies live on
// different shards.

let gw: TestGateway;
let failingReceiver: Awaited<ReturnType<typeof startReceiver>>;
let newReceiver: Awaited<ReturnType<typeof startReceiver>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: () => string[];
let failing = true;
const secrets: string[] = [];
let acme: number;
let globexEndpoint: number;
let globexDelivery: { id: string; event_id: string };
let linkUrl: string;

/** The deliveries of a company listed by the admin API, newest first. */
async function deliveriesOf(company: number, status?: string): Promise<Record<string, any>[]> {
  const res = await gw.admin('GET', `/admin/deliveries?company_id=${company}${status ? `&status=${status}` : ''}`);
  expect(res.status).toBe(200);
  return res.body.deliveries;
}

beforeAll(async () => {
  // One attempt per delivery: a failed one stays failed until replayed.
  gw = await startTestGateway({ ...TO_RECEIVERS, GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0' });
  failingReceiver = await startReceiver(
    () => [],
    () => (failing ? { status: 502, body: 'bad gateway' } : { status: 200 }),
  );
  newReceiver = await startReceiver(
    () => secrets,
    () => ({ status: 204 }),
  );
  acme = await newCompanyOnShard(gw, 0, { name: 'Acme <Shipping>' });
  const globex = await newCompanyOnShard(gw, 1, { name: 'Globex' });
  // The failing endpoint wants the texts and the webhook.disabled of the endpoint the company adds
  // below; the channel's auth events, written before any endpoint sees them or not, are none of these.
  const acmeEndpoint = (
    await newEndpoint(gw, acme, {
      url: failingReceiver.url,
      active: true,
      event_types: ['message.create', 'webhook.disabled'],
    })
  ).id;
  // Above the id Acme's next endpoint takes too: on another shard the same number would be Acme's own.
  globexEndpoint = (
    await endpointAbove(
      gw,
      globex,
      { url: failingReceiver.url, active: true, event_types: ['message.create'] },
      acmeEndpoint + 1,
    )
  ).id;
  const acmeChannel = await cloudChannel(gw, acme);
  const globexChannel = await cloudChannel(gw, globex);
  for (let i = 0; i < 3; i += 1) await postCloudText(gw, acmeChannel, `wamid.acme.${i}`, `order ${i}`);
  await postCloudText(gw, globexChannel, 'wamid.globex', 'globex secret plans');
  await eventually('three failed deliveries of Acme', async () => (await deliveriesOf(acme, 'failed')).length === 3);
  await eventually('one failed delivery of Globex', async () => (await deliveriesOf(globex, 'failed')).length === 1);
  const globexDeliveries = await deliveriesOf(globex);
  expect(globexDeliveries.map((d) => [d.event_type, d.status])).toEqual([['message.create', 'failed']]);
  globexDelivery = globexDeliveries[0] as { id: string; event_id: string };
  const res = await gw.request('POST', `/api/p2/companies/${acme}/portal_sessions`);
  expect(res.status, res.text).toBe(201);
  linkUrl = (res.body as { portal_session: { url: string } }).portal_session.url;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  ({ page, problems } = await watchedPage(context));
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await failingReceiver?.close();
  await newReceiver?.close();
});

const panel = (id: number) => page.locator(`[data-endpoint="${id}"]`);

/** One of Acme's endpoints as the API answers it. */
async function webhookOf(id: number): Promise<Record<string, unknown>> {
  const res = await gw.request('GET', `/api/p2/companies/${acme}/webhooks/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body.webhook;
}

describe('the company portal in Chromium', () => {
  it('opens from its link, takes the token out of the address, and shows the company by name as text', async () => {
    await page.goto(linkUrl);
    await page.waitForURL(`${gw.baseUrl}/portal#/endpoints`);
    await page.waitForSelector('[data-endpoint]');
    expect(await page.textContent('#company')).toBe('Acme <Shipping> · webhooks');
    expect(page.url()).not.toContain('gwp_');
    expect(await context.cookies()).toEqual([
      expect.objectContaining({ name: 'gw_portal', httpOnly: true, sameSite: 'Strict', path: '/portal' }),
    ]);
  });

  it('adds an endpoint, shows its secret once, and a test event arrives signed with it', async () => {
    await page.getByRole('textbox', { name: 'URL' }).last().fill(newReceiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.waitForSelector('#secret-value');
    const secret = (await page.textContent('#secret-value'))!;
    expect(secret).toMatch(/^whsec_/);
    secrets.push(secret);
    const [created] = (await gw.admin('GET', `/admin/companies/${acme}/endpoints`)).body.endpoints.slice(-1);
    expect(created.url).toBe(newReceiver.url);
    await panel(created.endpoint_id).getByRole('button', { name: 'Send test event' }).click();
    await expect
      .poll(() => page.textContent('#status'), { timeout: 15_000 })
      .toBe('Test event: Attempt 1: delivered (204).');
    expect(newReceiver.received).toHaveLength(1);
    expect(newReceiver.received[0]!.body).toMatchObject({
      event: 'test',
      type: 'webhook',
      object: { webhook_id: created.endpoint_id },
    });
    expect(newReceiver.received[0]!.verifiedBy).toEqual([0]);
    await page.reload();
    await page.waitForSelector('[data-endpoint]');
    expect(await page.locator('#secret-value').count()).toBe(0);
  });

  it('changes the event filter, rotates the secret showing the overlap, and disables the endpoint', async () => {
    const [endpoint] = (await gw.admin('GET', `/admin/companies/${acme}/endpoints`)).body.endpoints.slice(-1);
    const own = panel(endpoint.endpoint_id);
    await own.getByText('Change URL and events').click();
    await own.getByRole('checkbox', { name: 'message.create' }).check();
    await own.getByRole('checkbox', { name: 'conversation.update' }).check();
    await own.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.textContent('#status')).toBe(`Endpoint ${endpoint.endpoint_id} saved.`);
    expect((await webhookOf(endpoint.endpoint_id)).event_types).toEqual(['message.create', 'conversation.update']);
    expect(await panel(endpoint.endpoint_id).textContent()).toContain('message.create, conversation.update');
    await screenshot(page, 'portal-endpoints');

    await panel(endpoint.endpoint_id).getByRole('button', { name: 'Rotate secret' }).click();
    await page.waitForSelector('#secret-overlap');
    const rotated = (await page.textContent('#secret-value'))!;
    expect(rotated).not.toBe(secrets[0]);
    expect(await page.textContent('#secret-overlap')).toMatch(
      /^The previous secret keeps signing too until .+: switch your receiver over before then\.$/,
    );
    secrets.push(rotated);
    await panel(endpoint.endpoint_id).getByRole('button', { name: 'Send test event' }).click();
    await expect
      .poll(() => page.textContent('#status'), { timeout: 15_000 })
      .toBe('Test event: Attempt 1: delivered (204).');
    // Both secrets sign during the overlap: a receiver with either verifies.
    expect(newReceiver.received.at(-1)!.verifiedBy).toEqual([0, 1]);

    await panel(endpoint.endpoint_id).getByRole('button', { name: 'Disable' }).click();
    await expect.poll(() => page.textContent('#status')).toBe(`Endpoint ${endpoint.endpoint_id} is disabled.`);
    expect(await panel(endpoint.endpoint_id).getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    expect(await panel(endpoint.endpoint_id).textContent()).toContain('disabled in the company portal');
    expect((await webhookOf(endpoint.endpoint_id)).active).toBe(false);
  });

  it('reads the event log, replays a failed event and then all of them', async () => {
    await page.getByRole('link', { name: 'Event log' }).click();
    await page.waitForSelector('#events');
    // Three failed texts, two test events, and the webhook.disabled of the endpoint disabled above,
    // which the failing endpoint (it wants those) failed too.
    expect(await page.locator('#events tbody tr').count()).toBe(6);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.locator('#events tbody tr').count()).toBe(4);
    await screenshot(page, 'portal-events');
    await page.locator('#events tbody tr a').first().click();
    await page.waitForSelector('#event-body');
    expect(await page.textContent('#attempts')).toContain('bad gateway');
    failing = false;
    await page.getByRole('button', { name: 'Replay now' }).click();
    await expect.poll(() => page.textContent('#status'), { timeout: 15_000 }).toBe('Attempt 2: delivered (200).');
    await screenshot(page, 'portal-event');

    await page.goto(`${gw.baseUrl}/portal#/events?status=failed`);
    await page.getByRole('button', { name: 'Replay all failed events' }).click();
    await page.waitForSelector('#replay-progress');
    await expect.poll(() => page.textContent('#status')).toBe('The replay is completed: 3 of 3 replayed.');
    await eventually('acme has no failed delivery', async () => (await deliveriesOf(acme, 'failed')).length === 0);
  });

  it('shows nothing of another company whatever is typed in the address bar', async () => {
    await page.goto(`${gw.baseUrl}/portal#/events/${globexDelivery.id}`);
    await expect.poll(() => page.textContent('#status')).toBe(`There is no delivery ${globexDelivery.id}.`);
    expect(await page.textContent('main')).not.toContain('globex secret plans');
    expect(await page.textContent('main')).not.toContain(globexDelivery.event_id);
    // Globex's endpoint id is none of Acme's, so its own events cannot be what the filter finds.
    const own = (await gw.admin('GET', `/admin/companies/${acme}/endpoints`)).body.endpoints;
    expect(own.map((e: { endpoint_id: number }) => e.endpoint_id)).not.toContain(globexEndpoint);
    await page.goto(`${gw.baseUrl}/portal#/events?endpoint_id=${globexEndpoint}`);
    await page.waitForSelector('#no-events');
    await page.goto(`${gw.baseUrl}/portal#/replays/rpl_000000000000000000000000`);
    await expect.poll(() => page.textContent('#status')).toBe('There is no replay task rpl_000000000000000000000000.');
    expect(problems()).toEqual([]);
  });

  it('reads on a phone, and a used link opens nothing', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await phone.addCookies(await context.cookies());
    const { page: small, problems: smallProblems } = await watchedPage(phone);
    for (const hash of ['#/endpoints', '#/events']) {
      await small.goto(`${gw.baseUrl}/portal${hash}`);
      await small.waitForSelector('main h1');
      await small.waitForLoadState('networkidle');
      expect(await small.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), hash).toBe(true);
    }
    await screenshot(small, 'portal-phone', false);
    expect(smallProblems()).toEqual([]);
    await phone.close();

    const stranger = await watchedPage(await browser.newContext());
    await stranger.page.goto(linkUrl);
    await expect
      .poll(() => stranger.page.textContent('#status'))
      .toBe('This portal link was used already or has expired.');
    await stranger.page.goto(`${gw.baseUrl}/portal`);
    expect(stranger.page.url()).toBe(`${gw.baseUrl}/portal/enter`);
  });

  it("shows a Kafka endpoint's type and target, never its credentials, and offers its settings to change", async () => {
    const created = await gw.request('POST', `/api/p2/companies/${acme}/webhooks`, {
      json: {
        type: 'kafka',
        kafka: {
          brokers: ['kafka.example.com:9093'],
          topic: 'acme-events',
          sasl: { mechanism: 'plain', username: 'acme-kafka-user', password: 'acme-kafka-password' },
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.webhook.id as number;
    await page.goto(`${gw.baseUrl}/portal#/endpoints`);
    await page.reload();
    await page.waitForSelector(`[data-endpoint="${id}"]`);
    expect(await panel(id).locator('[data-destination]').textContent()).toBe('Kafka topic');
    expect(await panel(id).textContent()).toContain('kafka://kafka.example.com:9093/acme-events');
    expect(await panel(id).locator('input[name="url"]').count()).toBe(0);
    expect(await panel(id).locator('input[name="kafka/topic"]').inputValue()).toBe('acme-events');
    expect(await panel(id).locator('select[name="kafka/sasl/mechanism"]').inputValue()).toBe('plain');
    expect(await panel(id).locator('input[name="kafka/sasl/username"]').inputValue()).toBe('');
    expect(await panel(id).locator('input[name="kafka/sasl/password"]').inputValue()).toBe('');
    const html = await page.content();
    expect(html).not.toContain('acme-kafka-user');
    expect(html).not.toContain('acme-kafka-password');
    expect(problems()).toEqual([]);
  });
});
