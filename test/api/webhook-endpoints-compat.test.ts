// The company webhook endpoints as the hosted service's pages document them (pact-im/api-doc
// content/ru/v2/company-webhooks/*.md, content/en/v2/company-webhooks/*.md), and the test event on
// demand (issue #23 point 6), through the real HTTP API and a real receiver that verifies every
// request with the standardwebhooks package. Through HTTP alone, so it runs against a cluster too.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { webhookListResponse, webhookTestResponse } from '../../schemas/v2/webhooks.js';
import {
  ADMIN_TOKEN,
  expectErrorShape,
  failingFields,
  startTestGateway,
  type TestGateway,
} from '../helpers/gateway.js';
import { observeCompanyEvents } from '../helpers/company-events.js';
import { compileSchema } from '../helpers/schemas.js';
import { startReceiver, type Answer } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';
import { newCompany } from '../helpers/seed.js';

let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secrets: string[] = [];
let answers: Answer[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1', GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  receiver = await startReceiver(
    () => secrets,
    () => answers.shift() ?? { status: 200 },
  );
});

afterAll(async () => {
  await receiver?.close();
  await gw?.close();
});

beforeEach(() => {
  receiver.received.length = 0;
  secrets = [];
  answers = [];
});

const validateList = compileSchema(webhookListResponse);
const validateTest = compileSchema(webhookTestResponse);
const hooks = (company: number) => `/api/p2/companies/${company}/webhooks`;

/** Creates an endpoint at the receiver and signs with its secret from now on. */
async function createAtReceiver(company: number, path = '/hooks'): Promise<{ id: number; secret: string }> {
  const res = await gw.request('POST', hooks(company), { json: { url: receiver.url.replace('/hooks', path) } });
  expect(res.status, res.text).toBe(201);
  secrets.push(res.body.webhook.secret as string);
  return res.body.webhook as { id: number; secret: string };
}

/**
 * Waits for the `webhook.enabled` an activation writes: it reaches the endpoint itself (its filter
 * wants every event) through the dispatcher, after the answer, so a test that activates an endpoint
 * waits for it before it counts what else arrived.
 */
async function enabledEventArrived(id: number): Promise<void> {
  const isEnabled = (body: any) => body.type === 'webhook' && body.event === 'enabled' && body.object?.id === id;
  await eventually(`webhook.enabled of endpoint ${id}`, () => receiver.received.some((r) => isEnabled(r.body)));
}

const TEST_POST = { source: 'gateway', operation: 'test' };

/** The endpoint's url and whether it is active, as the API shows it. */
async function stored(company: number, id: number): Promise<{ url: string; active: boolean }> {
  const res = await gw.request('GET', `${hooks(company)}/${id}`);
  expect(res.status, res.text).toBe(200);
  return { url: res.body.webhook.url, active: res.body.webhook.active };
}

describe('pact-im/api-doc content/ru/v2/company-webhooks/create-webhook.md', () => {
  it('creates the endpoint inactive by default, with the documented fields, and sends nothing yet', async () => {
    const company = await newCompany(gw);
    const res = await gw.request('POST', hooks(company), { json: { url: 'https://example.com/webhook' } });
    expect(res.status).toBe(201);
    expect(res.body.webhook).toMatchObject({
      id: expect.any(Number),
      url: 'https://example.com/webhook',
      active: false,
    });
    expect(receiver.received).toHaveLength(0);
  });
});

describe('pact-im/api-doc content/ru/v2/company-webhooks/get-company-webhooks.md', () => {
  it('lists the endpoints with meta {page, entries_count, per_page}, 25 a page by default', async () => {
    const company = await newCompany(gw);
    const ids: number[] = [];
    for (let i = 0; i < 3; i += 1)
      ids.push(
        (await gw.request('POST', hooks(company), { json: { url: `https://example.com/${i}` } })).body.webhook
          .id as number,
      );
    const res = await gw.request('GET', hooks(company));
    expect(res.status).toBe(200);
    expect(validateList(res.body), JSON.stringify(validateList.errors)).toBe(true);
    expect(res.body.meta).toEqual({ page: 1, entries_count: 3, per_page: 25 });
    expect(res.body.webhooks.map((w: { id: number }) => w.id)).toEqual(ids);
    expect(res.body.webhooks[0]).toMatchObject({ id: ids[0], url: 'https://example.com/0', active: false });
  });

  it('pages with page and per_page (query or a JSON body, as the page sends it)', async () => {
    const company = await newCompany(gw);
    const ids: number[] = [];
    for (let i = 0; i < 3; i += 1)
      ids.push(
        (await gw.request('POST', hooks(company), { json: { url: `https://example.com/${i}` } })).body.webhook
          .id as number,
      );
    const second = await gw.request('GET', `${hooks(company)}?page=2&per_page=2`);
    expect(second.body).toMatchObject({ meta: { page: 2, entries_count: 3, per_page: 2 } });
    expect(second.body.webhooks.map((w: { id: number }) => w.id)).toEqual([ids[2]]);
    const asJson = await gw.request('GET', hooks(company), { json: { page: 3, per_page: 2 } });
    expect(asJson.body).toEqual({ webhooks: [], meta: { page: 3, entries_count: 3, per_page: 2 } });
    expect(failingFields(await gw.request('GET', `${hooks(company)}?per_page=0`))).toEqual(['per_page']);
    expect(failingFields(await gw.request('GET', `${hooks(company)}?page=0`))).toEqual(['page']);
  });
});

describe('pact-im/api-doc content/ru/v2/company-webhooks/update-webhook.md: activation sends the test POST', () => {
  it('activating sends {"source","operation":"test"}, signed, and activates on a 2xx', async () => {
    const company = await newCompany(gw);
    // Every event of the company, to prove that saving it again writes none.
    const events = await observeCompanyEvents(gw, company);
    const hook = await createAtReceiver(company);
    const res = await gw.request('PUT', `${hooks(company)}/${hook.id}`, { json: { active: true } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.webhook).toMatchObject({ id: hook.id, url: receiver.url, active: true });
    await enabledEventArrived(hook.id);
    expect(receiver.received).toHaveLength(2);
    const [test, enabled] = receiver.received;
    expect(test!.body).toEqual(TEST_POST);
    expect(test!.id).toMatch(/^test_[0-9a-f]+$/);
    expect(test!.verifiedBy).toEqual([0]);
    expect(enabled!.body).toMatchObject({ type: 'webhook', event: 'enabled', object: { id: hook.id, active: true } });
    expect(enabled!.verifiedBy).toEqual([0]);
    // Already active: saving it again tests nothing and writes no event.
    const before = await events.count();
    expect((await gw.request('PUT', `${hooks(company)}/${hook.id}`, { json: { active: true } })).status).toBe(200);
    expect(await events.since(before)).toEqual([]);
    // The endpoint wants every event: the observer's marks reach it too (all of them before the
    // test ends, so that none arrives in the next one), and nothing else did.
    const isMark = (r: { body: unknown }) => (r.body as any).object?.id === events.markerEndpointId;
    await eventually('every mark at the endpoint', () => receiver.received.filter(isMark).length === events.markers());
    expect(receiver.received.filter((r) => !isMark(r))).toEqual([test, enabled]);
    await events.close();
  });

  it('an endpoint that does not answer 2xx stays inactive: 422 on active, nothing changed', async () => {
    const company = await newCompany(gw);
    const hook = await createAtReceiver(company);
    answers = [{ status: 500 }];
    const res = await gw.request('PUT', `${hooks(company)}/${hook.id}`, {
      json: { active: true, event_types: ['message.create'] },
    });
    const [entry] = expectErrorShape(res, 422, 'validation_failed');
    expect(entry!.source).toEqual({ pointer: '/active' });
    expect(entry!.detail).toContain('answered HTTP 500');
    expect(await stored(company, hook.id)).toEqual({ url: receiver.url, active: false });
    expect(receiver.received).toHaveLength(1);
  });

  it('moving an active endpoint tests the new url first; a failing one is a 422 on url and keeps the old url', async () => {
    const company = await newCompany(gw);
    const hook = await createAtReceiver(company);
    expect((await gw.request('PUT', `${hooks(company)}/${hook.id}`, { json: { active: true } })).status).toBe(200);
    await enabledEventArrived(hook.id);
    const moved = receiver.url.replace('/hooks', '/moved');
    const ok = await gw.request('PUT', `${hooks(company)}/${hook.id}`, { json: { url: moved } });
    expect(ok.body.webhook).toMatchObject({ url: moved, active: true });
    const testPosts = receiver.received.filter((r) => r.id.startsWith('test_'));
    expect(testPosts.map((r) => r.body)).toEqual([TEST_POST, TEST_POST]);
    expect(receiver.received).toHaveLength(3);

    answers = [{ status: 404 }];
    const refused = await gw.request('PATCH', `${hooks(company)}/${hook.id}`, {
      json: { url: receiver.url.replace('/hooks', '/missing') },
    });
    expect(expectErrorShape(refused, 422, 'validation_failed')[0]!.source).toEqual({ pointer: '/url' });
    expect(await stored(company, hook.id)).toEqual({ url: moved, active: true });

    const privateUrl = await gw.request('PATCH', `${hooks(company)}/${hook.id}`, {
      json: { url: 'http://10.1.2.3/hook' },
    });
    // Refused by the private-address guard as the url is given, before any test POST.
    expect(expectErrorShape(privateUrl, 422, 'validation_failed')[0]!.detail).toMatch(
      /^url may not point at 10\.1\.2\.3: 10\.1\.2\.3 is a private address/,
    );
    expect(await stored(company, hook.id)).toEqual({ url: moved, active: true });
  });

  it('deactivating, or moving an inactive endpoint, sends nothing', async () => {
    const company = await newCompany(gw);
    const hook = await createAtReceiver(company);
    expect(
      (await gw.request('PATCH', `${hooks(company)}/${hook.id}`, { json: { url: 'https://example.com/elsewhere' } }))
        .body.webhook.active,
    ).toBe(false);
    expect((await gw.request('PATCH', `${hooks(company)}/${hook.id}`, { json: { active: false } })).status).toBe(200);
    expect(receiver.received).toHaveLength(0);
  });
});

describe('POST /api/p2/companies/<id>/webhooks/<webhook_id>/test, the same test POST on demand', () => {
  it('sends the signed test POST and answers its outcome, whether or not the endpoint is active', async () => {
    const company = await newCompany(gw);
    const hook = await createAtReceiver(company);
    answers = [{ status: 200, body: 'pong' }];
    const res = await gw.request('POST', `${hooks(company)}/${hook.id}/test`);
    expect(res.status, res.text).toBe(200);
    expect(validateTest(res.body), JSON.stringify(validateTest.errors)).toBe(true);
    expect(res.body.test).toEqual({
      webhook_id: receiver.received[0]!.id,
      url: receiver.url,
      success: true,
      status_code: 200,
      duration_ms: expect.any(Number),
      response_body: 'pong',
      error: null,
    });
    expect(receiver.received[0]!.verifiedBy).toEqual([0]);
    expect(receiver.received[0]!.body).toEqual({ source: 'gateway', operation: 'test' });
    expect((await stored(company, hook.id)).active).toBe(false); // a test changes nothing
  });

  it('answers a failing receiver and an unreachable address as outcomes, not as errors', async () => {
    const company = await newCompany(gw);
    const hook = await createAtReceiver(company);
    answers = [{ status: 503, body: 'down' }];
    const failing = await gw.request('POST', `${hooks(company)}/${hook.id}/test`);
    expect(failing.status).toBe(200);
    expect(failing.body.test).toMatchObject({ success: false, status_code: 503, response_body: 'down', error: null });

    // Inactive: moving it tests nothing, so it may point where nothing listens.
    const moved = await gw.request('PATCH', `${hooks(company)}/${hook.id}`, {
      json: { url: 'http://127.0.0.1:1/closed' },
    });
    expect(moved.status, moved.text).toBe(200);
    const closed = await gw.request('POST', `${hooks(company)}/${hook.id}/test`);
    expect(closed.body.test).toMatchObject({
      success: false,
      status_code: null,
      response_body: null,
      error: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it("answers 404 for another account's endpoint and sends nothing", async () => {
    const company = await newCompany(gw);
    const hook = await createAtReceiver(company);
    const other = await gw.createAccount('test-other');
    expectErrorShape(await gw.request('POST', `${hooks(company)}/${hook.id}/test`, { token: other }), 404, 'not_found');
    expectErrorShape(await gw.request('POST', `${hooks(company)}/999999/test`), 404, 'not_found');
    expect(receiver.received).toHaveLength(0);
  });
});
