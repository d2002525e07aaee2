// Secrets not at rest in the clear (issue 51 item 3): an idempotent repeat of an answer carrying a
// secret is refused (the secret is never stored; docs/decisions.md, "Secrets in idempotent
// answers"); answers carrying a secret or an event body say no-store and nosniff.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const ADMIN_TOKEN = 'admin-token-of-the-secrets-tests-0123';
let gw: TestGateway;
let companyId: number;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Secrets Co' } })).body.data
    .external_id as number;
});
afterAll(() => gw?.close());

/** Every column of every row of the idempotency table, as text. */
const idempotencyTable = () => JSON.stringify(gw.gateway.store.db.prepare('SELECT * FROM idempotency_keys').all());

const withheld = (key: string, status: number) => ({
  errors: [
    {
      status: 409,
      code: 'conflict',
      title: 'Conflict',
      detail:
        `The request with the Idempotency-Key "${key}" was answered already (HTTP ${status}), and that answer carried a secret, which the gateway does not keep: it cannot be answered again. ` +
        'Read the resource it made (a webhook endpoint is listed without its secret; rotate_secret gives it a new one), or ask again with a new key (a new portal link).',
    },
  ],
});

describe('idempotent repeats of an answer carrying a secret', () => {
  it("a webhook's secret appears nowhere in the idempotency table; the repeat is refused with 409, creating nothing", async () => {
    const headers = { 'Idempotency-Key': 'create-hook-1' };
    const created = await gw.request('POST', `/api/p2/companies/${companyId}/webhooks`, {
      json: { url: 'https://hooks.example.com/a' },
      headers,
    });
    expect(created.status).toBe(201);
    const secret = created.body.webhook.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(idempotencyTable()).not.toContain(secret);
    expect(idempotencyTable()).not.toContain(secret.slice('whsec_'.length));
    expect(
      gw.gateway.store.db
        .prepare("SELECT status, body, withheld FROM idempotency_keys WHERE idempotency_key = 'create-hook-1'")
        .get(),
    ).toEqual({ status: 201, body: null, withheld: 1 });

    const repeat = await gw.request('POST', `/api/p2/companies/${companyId}/webhooks`, {
      json: { url: 'https://hooks.example.com/a' },
      headers,
    });
    expect(repeat.status).toBe(409);
    expect(repeat.body).toEqual(withheld('create-hook-1', 201));
    expect((await gw.request('GET', `/api/p2/companies/${companyId}/webhooks`)).body.webhooks).toHaveLength(1);
    // The same key with another request is still the usual 422.
    expect(
      (
        await gw.request('POST', `/api/p2/companies/${companyId}/webhooks`, {
          json: { url: 'https://hooks.example.com/b' },
          headers,
        })
      ).status,
    ).toBe(422);

    const rotateHeaders = { 'Idempotency-Key': 'rotate-1' };
    const rotated = await gw.request(
      'POST',
      `/api/p2/companies/${companyId}/webhooks/${created.body.webhook.id}/rotate_secret`,
      { headers: rotateHeaders },
    );
    expect(rotated.status).toBe(200);
    expect(idempotencyTable()).not.toContain(rotated.body.webhook.secret);
    const again = await gw.request(
      'POST',
      `/api/p2/companies/${companyId}/webhooks/${created.body.webhook.id}/rotate_secret`,
      { headers: rotateHeaders },
    );
    expect(again.body).toEqual(withheld('rotate-1', 200));
    // Not rotated a second time: the secret the first answer gave still signs.
    expect(
      gw.gateway.store.db
        .prepare('SELECT secret FROM webhook_endpoints WHERE id = ?')
        .pluck()
        .get(created.body.webhook.id),
    ).toBe(rotated.body.webhook.secret);
  });

  it('a portal link is not kept either', async () => {
    const headers = { 'Idempotency-Key': 'portal-1' };
    const link = await gw.request('POST', `/api/p2/companies/${companyId}/portal_sessions`, { headers });
    expect(link.status).toBe(201);
    const token = new URL(link.body.portal_session.url).hash.slice(1);
    expect(idempotencyTable()).not.toContain(token);
    expect((await gw.request('POST', `/api/p2/companies/${companyId}/portal_sessions`, { headers })).body).toEqual(
      withheld('portal-1', 201),
    );
  });

  it('an answer without a secret is still answered again', async () => {
    const headers = { 'Idempotency-Key': 'company-1' };
    const first = await gw.request('POST', '/p1/companies', { json: { name: 'Again Co' }, headers });
    const again = await gw.request('POST', '/p1/companies', { json: { name: 'Again Co' }, headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });
});

describe('answers carrying a secret or an event body', () => {
  const expectPrivate = (
    answer: { headers: Record<string, unknown>; status: number; text: string },
    status: number,
  ) => {
    expect(answer.status, answer.text).toBe(status);
    expect(answer.headers['cache-control'], answer.text).toBe('no-store');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  };

  it('say Cache-Control: no-store and X-Content-Type-Options: nosniff', async () => {
    const created = await gw.request('POST', `/api/p2/companies/${companyId}/webhooks`, {
      json: { url: 'https://hooks.example.com/c' },
    });
    expectPrivate(created, 201);
    expectPrivate(
      await gw.request('POST', `/api/p2/companies/${companyId}/webhooks/${created.body.webhook.id}/rotate_secret`),
      200,
    );
    expectPrivate(await gw.request('POST', `/api/p2/companies/${companyId}/portal_sessions`), 201);
    const admin = { token: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
    expectPrivate(await gw.request('GET', '/admin/deliveries', admin), 200);
    expectPrivate(await gw.request('GET', `/admin/companies/${companyId}/endpoints`, admin), 200);
    expectPrivate(await gw.request('GET', '/admin/pipeline', admin), 200);
    // An error answer too (an event body's route, for a delivery that is not there).
    expectPrivate(await gw.request('GET', '/admin/deliveries/dlv_missing', admin), 404);
    // A file keeps its own caching: its unguessable URL is the capability.
    const form = new FormData();
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
    const upload = await fetch(`${gw.baseUrl}/api/p2/companies/${companyId}/attachments`, {
      method: 'POST',
      body: form,
      headers: { 'x-private-api-token': gw.token },
    });
    const file = await fetch(
      ((await upload.json()) as { attachment: { attachment_url: string } }).attachment.attachment_url,
    );
    expect(file.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
