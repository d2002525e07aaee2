// Idempotent writes (issue #23 point 7): every POST of the REST API, v1 and v2, takes an
// Idempotency-Key, through the real HTTP API on a real SQLite file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { ManualClock } from '../../src/streams/stream.js';
import { IdempotencyJanitor } from '../../src/workers/idempotency-janitor.js';
import { expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { seedCompany, seedConversation, type Seeded } from '../helpers/seed.js';

let gw: TestGateway;
let seeded: Seeded;

beforeAll(async () => {
  gw = await startTestGateway();
  seeded = seedConversation(gw, await seedCompany(gw), { externalTimes: [1_700_000_000_000] });
});

afterAll(async () => {
  await gw?.close();
});

const count = (table: string) =>
  (gw.gateway.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const key = () => `key-${Math.random().toString(36).slice(2)}`;

describe('Idempotency-Key on POST', () => {
  it('v2: a repeat answers the first answer again and changes nothing (no second message, no second event)', async () => {
    const path = `/api/p2/conversations/${seeded.conversationId}/messages`;
    const headers = { 'Idempotency-Key': key() };
    const body = { company_id: seeded.companyId, text: 'once' };
    const first = await gw.request('POST', path, { json: body, headers });
    expect(first.status, first.text).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The send job and message.create; the sender's later outcome (message.update) is not the request's.
    const written = () =>
      count('outbox WHERE stream = \'gateway.outbound\' OR payload LIKE \'%"name":"message.create"%\'');
    const [messages, events] = [count('messages'), written()];
    expect(events).toBeGreaterThan(0);

    const again = await gw.request('POST', path, { json: { text: 'once', company_id: seeded.companyId }, headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect([count('messages'), written()]).toEqual([messages, events]);
  });

  it('v1 (a form body): a repeat answers the same company', async () => {
    const headers = { 'Idempotency-Key': key() };
    const first = await gw.request('POST', '/p1/companies', { form: 'name=Formed+Co', headers });
    expect(first.status).toBe(201);
    const companies = count('companies');
    const again = await gw.request('POST', '/p1/companies', { form: 'name=Formed+Co', headers });
    expect(again.body).toEqual(first.body);
    expect(again.status).toBe(201);
    expect(count('companies')).toBe(companies);
  });

  it('the same key with another body, or on another path, is a 422 and changes nothing', async () => {
    const headers = { 'Idempotency-Key': key() };
    expect((await gw.request('POST', '/p1/companies', { json: { name: 'First' }, headers })).status).toBe(201);
    const companies = count('companies');
    const other = await gw.request('POST', '/p1/companies', { json: { name: 'Second' }, headers });
    expect(expectErrorShape(other, 422, 'validation_failed')[0]!.detail).toContain('was used with another request');
    const elsewhere = await gw.request('POST', `/api/p2/companies/${seeded.companyId}/webhooks`, {
      json: { url: 'https://example.com/x' },
      headers,
    });
    expectErrorShape(elsewhere, 422, 'validation_failed');
    expect(count('companies')).toBe(companies);
    expect(gw.gateway.store.webhooks.list(seeded.companyId)).toHaveLength(0);
  });

  it('concurrent repeats create one resource and all answer it', async () => {
    const headers = { 'Idempotency-Key': key() };
    const companies = count('companies');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => gw.request('POST', '/p1/companies', { json: { name: 'Raced Co' }, headers })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201));
    expect(new Set(answers.map((a) => a.body.data.external_id)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(5);
    expect(count('companies')).toBe(companies + 1);
  });

  it("keys are per account: another account's same key is its own, and never gets this answer", async () => {
    const shared = key();
    const mine = await gw.request('POST', '/p1/companies', {
      json: { name: 'Mine' },
      headers: { 'Idempotency-Key': shared },
    });
    const other = await gw.createAccount('idem-other');
    const theirs = await gw.request('POST', '/p1/companies', {
      token: other,
      json: { name: 'Mine' },
      headers: { 'Idempotency-Key': shared },
    });
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.external_id).not.toBe(mine.body.data.external_id);
  });

  it('a refusal is answered again too; a key is 1 to 255 visible ASCII characters', async () => {
    const headers = { 'Idempotency-Key': key() };
    const first = await gw.request('POST', '/p1/companies', { json: { name: '' }, headers });
    expectErrorShape(first, 422, 'validation_failed');
    const again = await gw.request('POST', '/p1/companies', { json: { name: '' }, headers });
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expectErrorShape(
      await gw.request('POST', '/p1/companies', {
        json: { name: 'x' },
        headers: { 'Idempotency-Key': 'k'.repeat(256) },
      }),
      400,
      'bad_request',
    );
    expectErrorShape(
      await gw.request('POST', '/p1/companies', { json: { name: 'x' }, headers: { 'Idempotency-Key': 'with space' } }),
      400,
      'bad_request',
    );
  });

  it('a multipart upload repeated with its key answers the first attachment and keeps one file', async () => {
    const headers = { 'Idempotency-Key': key(), 'content-type': 'multipart/form-data; boundary=b0' };
    const part = (boundary: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;
    const first = await gw.request('POST', `/api/p2/companies/${seeded.companyId}/attachments`, {
      body: part('b0'),
      headers,
    });
    expect(first.status, first.text).toBe(201);
    const attachments = count('attachments');
    // Another boundary, as a client's retry would have.
    const again = await gw.request('POST', `/api/p2/companies/${seeded.companyId}/attachments`, {
      body: part('b1'),
      headers: { ...headers, 'content-type': 'multipart/form-data; boundary=b1' },
    });
    expect(again.body).toEqual(first.body);
    expect(count('attachments')).toBe(attachments);
  });

  it('is kept in SQLite for 24 hours, then the key is new again and the janitor deletes it', async () => {
    const headers = { 'Idempotency-Key': key() };
    const first = await gw.request('POST', '/p1/companies', { json: { name: 'Day Co' }, headers });
    const stored = gw.gateway.store.db
      .prepare('SELECT status, body FROM idempotency_keys WHERE idempotency_key = ?')
      .get(headers['Idempotency-Key']) as { status: number; body: string };
    expect(stored).toEqual({ status: 201, body: JSON.stringify(first.body) });

    gw.gateway.store.db
      .prepare('UPDATE idempotency_keys SET created_at = created_at - ? WHERE idempotency_key = ?')
      .run(24 * 3_600_000 + 1_000, headers['Idempotency-Key']);
    const later = await gw.request('POST', '/p1/companies', { json: { name: 'Day Co' }, headers });
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.data.external_id).not.toBe(first.body.data.external_id);

    const clock = new ManualClock(Date.now() + 24 * 3_600_000 + 1_000);
    const janitor = new IdempotencyJanitor({
      store: gw.gateway.store,
      clock,
      logger: createLogger('silent'),
      everyMs: 60_000,
    });
    const stop = new AbortController();
    const running = janitor.run(stop.signal);
    await expect.poll(() => count('idempotency_keys'), { timeout: 5_000 }).toBe(0);
    stop.abort();
    await running;
  });
});
