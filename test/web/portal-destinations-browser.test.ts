import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { screenshot, watchedPage } from '../helpers/pages.js';
import { failingFields, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { insertCompany } from '../helpers/pipeline.js';

// The portal's endpoint form in a real Chromium (docs/console.md): a Kafka, a RabbitMQ and an SQS
// endpoint added through it are read back through the API exactly, credentials nowhere; a change
// leaves the credentials empty and keeps them; the API's 422 shows beside its field; the company's
// own values are shown as text.

let gw: TestGateway;
let browser: Browser;
let page: Page;
let problems: () => string[];
let company: number;
const MARKUP = '<img src=x onerror="window.pwned=1">';
const CREDENTIALS = [
  'form-kafka-user',
  'form-kafka-password',
  'form-amqp-user',
  'form-amqp-password',
  'AKIAFORMKEY',
  'form-sqs-secret',
];

beforeAll(async () => {
  gw = await startTestGateway();
  company = insertCompany(gw.store, 'Form Brokers');
  browser = await launchChromium();
  ({ page, problems } = await watchedPage(await browser.newContext({ viewport: { width: 1280, height: 900 } })));
  const link = await gw.request('POST', `/api/p2/companies/${company}/portal_sessions`);
  await page.goto((link.body as { portal_session: { url: string } }).portal_session.url);
  await page.waitForSelector('#add-endpoint');
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

const addForm = (): Locator => page.locator('#add-endpoint');
const input = (scope: Locator, label: string): Locator => scope.getByLabel(label, { exact: true });

/** Submits the add form and answers the new endpoint as the API shows it. */
async function addAndReadBack(): Promise<Record<string, unknown>> {
  await page.evaluate("document.getElementById('status').textContent = ''");
  await addForm().getByRole('button', { name: 'Add endpoint' }).click();
  await expect.poll(() => page.textContent('#status')).toMatch(/^Endpoint \d+ added\.$/);
  const id = Number(/Endpoint (\d+)/.exec((await page.textContent('#status'))!)![1]);
  const res = await gw.request('GET', `/api/p2/companies/${company}/webhooks/${id}`);
  expect(res.status, res.text).toBe(200);
  for (const credential of CREDENTIALS) expect(res.text).not.toContain(credential);
  return res.body.webhook as Record<string, unknown>;
}

/** What the API answers of any endpoint the portal made, beside its destination. */
const common = (id: unknown) => ({
  id,
  company_id: company,
  source: 'api',
  active: true,
  disabled_reason: null,
  event_types: null,
  ordering: 'default',
  rate_limit: null,
  previous_secret_expires_at: null,
  created_at: expect.any(String),
  updated_at: expect.any(String),
});
const stored = (id: unknown): unknown => JSON.parse(gw.store.webhooks.find(company, id as number)!.destination!);

describe('broker endpoints through the portal form', () => {
  it('adds a Kafka endpoint with SASL and TLS', async () => {
    await addForm().getByLabel('Delivers to').selectOption('kafka');
    await input(addForm(), 'Brokers').fill('kafka-1.example.com:9093, kafka-2.example.com:9093');
    await input(addForm(), 'Topic').fill('form.events');
    await input(addForm(), 'SASL mechanism').selectOption('scram-sha-256');
    await input(addForm(), 'SASL username').fill('form-kafka-user');
    await input(addForm(), 'SASL password').fill('form-kafka-password');
    await input(addForm(), 'Connect with TLS').check();
    await input(addForm(), 'Certificate name').fill('kafka.example.com');
    const hook = await addAndReadBack();
    expect(hook).toEqual({
      ...common(hook.id),
      type: 'kafka',
      url: 'kafka://kafka-1.example.com:9093,kafka-2.example.com:9093/form.events',
      kafka: {
        brokers: ['kafka-1.example.com:9093', 'kafka-2.example.com:9093'],
        topic: 'form.events',
        sasl: { mechanism: 'scram-sha-256' },
        tls: { servername: 'kafka.example.com' },
      },
    });
    expect(stored(hook.id)).toEqual({
      brokers: ['kafka-1.example.com:9093', 'kafka-2.example.com:9093'],
      topic: 'form.events',
      sasl: { mechanism: 'scram-sha-256', username: 'form-kafka-user', password: 'form-kafka-password' },
      tls: { servername: 'kafka.example.com' },
    });
    const facts = page.locator(`[data-endpoint="${String(hook.id)}"] dl.facts`);
    expect(await facts.textContent()).toContain(
      'Brokerskafka-1.example.com:9093, kafka-2.example.com:9093Topicform.eventsSASLscram-sha-256TLSon, certificate name kafka.example.com',
    );
  });

  it('adds a RabbitMQ endpoint, its URL shown without user and password', async () => {
    await addForm().getByLabel('Delivers to').selectOption('rabbitmq');
    await input(addForm(), 'AMQP URL').fill('amqps://form-amqp-user:form-amqp-password@mq.example.com:5671/prod');
    await input(addForm(), 'Exchange').fill('company-events');
    await input(addForm(), 'Routing key').fill('portal');
    const hook = await addAndReadBack();
    expect(hook).toEqual({
      ...common(hook.id),
      type: 'rabbitmq',
      url: 'amqps://mq.example.com:5671/prod',
      rabbitmq: { url: 'amqps://mq.example.com:5671/prod', exchange: 'company-events', routing_key: 'portal' },
    });
    expect(stored(hook.id)).toEqual({
      url: 'amqps://form-amqp-user:form-amqp-password@mq.example.com:5671/prod',
      exchange: 'company-events',
      routing_key: 'portal',
    });
  });

  it('adds an SQS endpoint with an access key', async () => {
    await addForm().getByLabel('Delivers to').selectOption('sqs');
    const queue = 'https://sqs.eu-west-1.amazonaws.com/123456789012/form-events.fifo';
    await input(addForm(), 'Queue URL').fill(queue);
    await input(addForm(), 'Region').fill('eu-west-1');
    await input(addForm(), 'Access key id').fill('AKIAFORMKEY');
    await input(addForm(), 'Secret access key').fill('form-sqs-secret');
    const hook = await addAndReadBack();
    expect(hook).toEqual({
      ...common(hook.id),
      type: 'sqs',
      url: queue,
      sqs: { queue_url: queue, region: 'eu-west-1', fifo: true, signed: true },
    });
    expect(stored(hook.id)).toEqual({
      queue_url: queue,
      region: 'eu-west-1',
      access_key_id: 'AKIAFORMKEY',
      secret_access_key: 'form-sqs-secret',
    });
    await screenshot(page, 'portal-broker-endpoints');
  });

  it('changes a Kafka endpoint with its credentials left empty, and keeps them', async () => {
    const [kafka] = gw.store.webhooks.list(company).filter((row) => row.type === 'kafka');
    const panel = page.locator(`[data-endpoint="${kafka!.id}"]`);
    await panel.getByText('Change target and events').click();
    // The stored credentials are nowhere in the page: the fields are empty.
    expect(await input(panel, 'SASL username').inputValue()).toBe('');
    expect(await input(panel, 'SASL password').inputValue()).toBe('');
    expect(await input(panel, 'Topic').inputValue()).toBe('form.events');
    for (const credential of CREDENTIALS) expect(await page.content()).not.toContain(credential);
    await input(panel, 'Topic').fill('form.renamed');
    await panel.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.textContent('#status')).toBe(`Endpoint ${kafka!.id} saved.`);
    expect(stored(kafka!.id)).toEqual({
      brokers: ['kafka-1.example.com:9093', 'kafka-2.example.com:9093'],
      topic: 'form.renamed',
      sasl: { mechanism: 'scram-sha-256', username: 'form-kafka-user', password: 'form-kafka-password' },
      tls: { servername: 'kafka.example.com' },
    });
  });

  it("shows the API's 422 beside the field it names, and adds nothing", async () => {
    const before = gw.store.webhooks.count(company);
    const bad = { brokers: ['kafka-1.example.com:9093'], topic: 'no spaces allowed' };
    const api = await gw.request('POST', `/api/p2/companies/${company}/webhooks`, {
      json: { type: 'kafka', kafka: bad },
    });
    expect(failingFields(api)).toEqual(['kafka/topic']);
    await addForm().getByLabel('Delivers to').selectOption('kafka');
    await input(addForm(), 'Brokers').fill('kafka-1.example.com:9093');
    await input(addForm(), 'Topic').fill('no spaces allowed');
    await input(addForm(), 'SASL mechanism').selectOption('');
    await addForm().getByRole('button', { name: 'Add endpoint' }).click();
    const error = addForm().locator('[data-error-for="kafka/topic"]');
    await expect.poll(() => error.textContent()).toBe(api.body.errors[0].detail);
    expect(await input(addForm(), 'Topic').getAttribute('aria-invalid')).toBe('true');
    expect(await page.textContent('#status')).toBe(api.body.errors[0].detail);
    expect(gw.store.webhooks.count(company)).toBe(before);
    await addForm().scrollIntoViewIfNeeded();
    await screenshot(page, 'portal-endpoint-form-error', false);
    // A private broker address: the guard's refusal names the first broker, shown beside Brokers.
    await input(addForm(), 'Topic').fill('form.events');
    await input(addForm(), 'Brokers').fill('10.0.0.7:9092');
    await addForm().getByRole('button', { name: 'Add endpoint' }).click();
    const brokers = addForm().locator('[data-error-for="kafka/brokers"]');
    await expect.poll(() => brokers.textContent()).toContain('kafka/brokers/0 may not point at 10.0.0.7');
    expect(await error.isHidden()).toBe(true);
    expect(gw.store.webhooks.count(company)).toBe(before);
    expect(problems()).toEqual([]);
  });

  it("shows a RabbitMQ endpoint's exchange and routing key as text, markup included", async () => {
    const res = await gw.request('POST', `/api/p2/companies/${company}/webhooks`, {
      json: {
        type: 'rabbitmq',
        rabbitmq: { url: 'amqp://mq.example.com/', exchange: `ex${MARKUP}`, routing_key: MARKUP },
      },
    });
    expect(res.status, res.text).toBe(201);
    await page.reload();
    const facts = page.locator(`[data-endpoint="${String(res.body.webhook.id)}"] dl.facts`);
    await facts.waitFor();
    expect(await facts.textContent()).toContain(`Exchangeex${MARKUP}Routing key${MARKUP}`);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(problems()).toEqual([]);
  });
});
