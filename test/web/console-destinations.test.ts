import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { watchedPage } from '../helpers/pages.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { insertCompany } from '../helpers/pipeline.js';

// The console's endpoints page and the admin API under it (docs/admin.md) show a broker endpoint's
// type and settings, never its credentials; the company's own values stay text.

let gw: TestGateway;
let browser: Browser;
let page: Page;
let problems: () => string[];
let company: number;
const ids: Record<string, number> = {};
const MARKUP = '<img src=x onerror="window.pwned=1">';
const CREDENTIALS = [
  'console-kafka-user',
  'console-kafka-pass',
  'console-amqp-user',
  'console-amqp-pass',
  'AKIACONSOLE',
  'console-sqs-secret',
];

const KAFKA = {
  brokers: ['kafka-1.example.com:9093'],
  topic: 'console.events',
  sasl: { mechanism: 'plain', username: 'console-kafka-user', password: 'console-kafka-pass' },
  tls: { reject_unauthorized: false },
};
const RABBIT = {
  url: 'amqp://console-amqp-user:console-amqp-pass@mq.example.com/',
  exchange: '',
  routing_key: MARKUP,
};
const SQS = {
  queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/console',
  region: 'eu-west-1',
  access_key_id: 'AKIACONSOLE',
  secret_access_key: 'console-sqs-secret',
};

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  company = insertCompany(gw.store, 'Console Brokers');
  for (const [type, settings] of Object.entries({ kafka: KAFKA, rabbitmq: RABBIT, sqs: SQS })) {
    const res = await gw.request('POST', `/api/p2/companies/${company}/webhooks`, { json: { type, [type]: settings } });
    expect(res.status, res.text).toBe(201);
    ids[type] = res.body.webhook.id as number;
  }
  browser = await launchChromium();
  ({ page, problems } = await watchedPage(await browser.newContext()));
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

describe('broker endpoints in the console', () => {
  it('the admin API answers their type and settings without credentials', async () => {
    const res = await gw.admin('GET', `/admin/companies/${company}/endpoints`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byId = new Map((res.body.endpoints as Record<string, unknown>[]).map((e) => [e.endpoint_id, e]));
    const destination = (type: string) => {
      const shown = byId.get(ids[type])!;
      return { type: shown.type, url: shown.url, [type]: shown[type] };
    };
    expect(destination('kafka')).toEqual({
      type: 'kafka',
      url: 'kafka://kafka-1.example.com:9093/console.events',
      kafka: { brokers: KAFKA.brokers, topic: 'console.events', sasl: { mechanism: 'plain' }, tls: KAFKA.tls },
    });
    expect(destination('rabbitmq')).toEqual({
      type: 'rabbitmq',
      url: 'amqp://mq.example.com/',
      rabbitmq: { url: 'amqp://mq.example.com/', exchange: '', routing_key: MARKUP },
    });
    expect(destination('sqs')).toEqual({
      type: 'sqs',
      url: SQS.queue_url,
      sqs: { queue_url: SQS.queue_url, region: 'eu-west-1', fifo: false, signed: true },
    });
    for (const credential of CREDENTIALS) expect(JSON.stringify(res.body)).not.toContain(credential);
  });

  it('the endpoints page shows them as text', async () => {
    await page.goto(`${gw.baseUrl}/console/login`);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${gw.baseUrl}/console#/deliveries`);
    await page.goto(`${gw.baseUrl}/console#/endpoints?company_id=${company}`);
    const facts = (type: string) => page.locator(`[data-endpoint="${ids[type]}"] dl.facts`);
    await facts('sqs').waitFor();
    expect(await facts('kafka').textContent()).toContain(
      'Delivers toKafka topicTargetkafka://kafka-1.example.com:9093/console.eventsBrokerskafka-1.example.com:9093Topicconsole.eventsSASLplainTLSon, certificate NOT verified',
    );
    expect(await facts('rabbitmq').textContent()).toContain(
      `Targetamqp://mq.example.com/Exchange(the default exchange)Routing key${MARKUP}`,
    );
    expect(await facts('sqs').textContent()).toContain(
      `Target${SQS.queue_url}Regioneu-west-1FIFO queuenoRequestssigned with its access key`,
    );
    const html = await page.content();
    for (const credential of CREDENTIALS) expect(html).not.toContain(credential);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(problems()).toEqual([]);
  });
});
