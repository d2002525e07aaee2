// Endpoints that sign with ed25519 (Standard Webhooks `v1a`, docs/api.md "Asymmetric signatures"):
// the key pair through the API, and deliveries that verify with the public key alone.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookResponse } from '../../schemas/v2/webhooks.js';
import { failingFields, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { emitEvent } from '../helpers/pipeline.js';
import { startHttpServer, type HttpServer } from '../helpers/receiver.js';
import { compileSchema } from '../helpers/schemas.js';
import { verifyV1a } from '../helpers/verify-v1a.js';
import { eventually } from '../helpers/wait.js';
import { newCompany } from '../helpers/seed.js';

interface RawDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let gw: TestGateway;
let server: HttpServer;
const deliveries: RawDelivery[] = [];
beforeAll(async () => {
  gw = await startTestGateway(TO_RECEIVERS);
  server = await startHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
});
afterAll(async () => {
  await server?.close();
  await gw?.close();
});

const validateWebhook = compileSchema(webhookResponse);
const hooksPath = (company: number) => `/api/p2/companies/${company}/webhooks`;

describe('ed25519 endpoints', () => {
  it('answers the whsk_ key once and the whpk_ public key always; rotation keeps the algorithm', async () => {
    const company = await newCompany(gw);
    const created = await gw.request('POST', hooksPath(company), {
      json: { url: 'https://crm.example.com/hooks', signing_algorithm: 'ed25519' },
    });
    expect(created.status, created.text).toBe(201);
    expect(validateWebhook(created.body), JSON.stringify(validateWebhook.errors)).toBe(true);
    const hook = created.body.webhook as { id: number; secret: string; public_key: string; signing_algorithm: string };
    expect(hook.secret).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
    expect(hook.public_key).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(hook.signing_algorithm).toBe('ed25519');

    const shown = await gw.request('GET', `${hooksPath(company)}/${hook.id}`);
    expect(shown.body.webhook).not.toHaveProperty('secret');
    expect(shown.body.webhook).toMatchObject({ signing_algorithm: 'ed25519', public_key: hook.public_key });
    const listed = await gw.request('GET', hooksPath(company));
    expect(listed.text).not.toContain(hook.secret);

    const rotated = await gw.request('POST', `${hooksPath(company)}/${hook.id}/rotate_secret`);
    expect(rotated.status, rotated.text).toBe(200);
    // The new private key is not answered: receivers need only the new public key.
    expect(rotated.body.webhook).not.toHaveProperty('secret');
    const newKey = gw.store.webhooks.find(company, hook.id)!.secret;
    expect(newKey).toMatch(/^whsk_/);
    expect(newKey).not.toBe(hook.secret);
    expect(rotated.body.webhook.public_key).toMatch(/^whpk_/);
    expect(rotated.body.webhook.public_key).not.toBe(hook.public_key);
    expect(rotated.text).not.toContain(newKey.slice(5));
    expect(gw.logText()).not.toContain(hook.secret.slice(5));
    expect(gw.logText()).not.toContain(newKey.slice(5));
  });

  it('keeps HMAC endpoints as they were: a whsec_ secret and no signing keys in the answer', async () => {
    const company = await newCompany(gw);
    for (const json of [
      { url: 'https://crm.example.com/a' },
      { url: 'https://crm.example.com/b', signing_algorithm: 'hmac-sha256' },
    ]) {
      const res = await gw.request('POST', hooksPath(company), { json });
      expect(res.body.webhook.secret).toMatch(/^whsec_/);
      expect(res.body.webhook).not.toHaveProperty('public_key');
      expect(res.body.webhook).not.toHaveProperty('signing_algorithm');
    }
  });

  it('refuses an update that names another algorithm, and accepts one naming its own', async () => {
    const company = await newCompany(gw);
    const created = await gw.request('POST', hooksPath(company), {
      json: { url: 'https://crm.example.com/d', signing_algorithm: 'ed25519' },
    });
    const path = `${hooksPath(company)}/${created.body.webhook.id}`;
    const refused = await gw.request('PATCH', path, {
      json: { signing_algorithm: 'hmac-sha256', url: 'https://crm.example.com/e' },
    });
    expect(refused.status, refused.text).toBe(422);
    expect(failingFields(refused)).toEqual(['signing_algorithm']);
    expect(refused.text).toContain('is ed25519, chosen when the endpoint was created');
    const unchanged = await gw.request('GET', path);
    expect(unchanged.body.webhook).toMatchObject({ url: 'https://crm.example.com/d', signing_algorithm: 'ed25519' });

    const same = await gw.request('PATCH', path, {
      json: { signing_algorithm: 'ed25519', url: 'https://crm.example.com/e' },
    });
    expect(same.status, same.text).toBe(200);
    expect(same.body.webhook).toMatchObject({
      url: 'https://crm.example.com/e',
      public_key: created.body.webhook.public_key,
    });

    const hmac = await gw.request('POST', hooksPath(company), { json: { url: 'https://crm.example.com/f' } });
    const toEd = await gw.request('PUT', `${hooksPath(company)}/${hmac.body.webhook.id}`, {
      json: { signing_algorithm: 'ed25519' },
    });
    expect(toEd.status, toEd.text).toBe(422);
    expect(failingFields(toEd)).toEqual(['signing_algorithm']);
  });

  it('refuses an unknown algorithm with a 422 naming it', async () => {
    const company = await newCompany(gw);
    const res = await gw.request('POST', hooksPath(company), {
      json: { url: 'https://crm.example.com/c', signing_algorithm: 'rsa' },
    });
    expect(failingFields(res)).toEqual(['signing_algorithm']);
    expect(gw.store.webhooks.count(company)).toBe(0);
  });

  it('delivers events signed v1a: they verify with the public key, and not as HMAC', async () => {
    const company = await newCompany(gw);
    const created = await gw.request('POST', hooksPath(company), {
      json: { url: `${server.origin}/hooks`, active: true, signing_algorithm: 'ed25519' },
    });
    const { secret, public_key: publicKey } = created.body.webhook as { secret: string; public_key: string };
    const event = emitEvent(gw.store, company, 'message.create', { id: 42, text: 'signed with ed25519 ✓' });
    await eventually('the delivery', () => deliveries.some((d) => d.headers['webhook-id'] === event.id));
    const delivery = deliveries.find((d) => d.headers['webhook-id'] === event.id)!;
    expect(delivery.headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(JSON.parse(delivery.body)).toEqual(event.body);
    expect(() => verifyV1a(publicKey, delivery.headers, delivery.body)).not.toThrow();
    // Tampered with, it does not verify.
    expect(() => verifyV1a(publicKey, delivery.headers, delivery.body.replace('42', '43'))).toThrow();
    // An HMAC verifier with the private key as if it were a secret finds no v1 signature.
    expect(() =>
      new Webhook(`whsec_${secret.slice(5)}`).verify(delivery.body, delivery.headers as Record<string, string>),
    ).toThrow();
    expect(gw.logText()).not.toContain(secret.slice(5));

    // The test POST is signed the same way.
    const test = await gw.request('POST', `${hooksPath(company)}/${created.body.webhook.id}/test`);
    expect(test.body.test.success).toBe(true);
    const testPost = deliveries.find((d) => d.headers['webhook-id'] === test.body.test.webhook_id)!;
    expect(() => verifyV1a(publicKey, testPost.headers, testPost.body)).not.toThrow();
  });
});
