// Black-box HTTP tests of creating company webhook endpoints (docs/design.md section 7 for the secret,
// section 9 for the paths) against a real gateway on a temp SQLite file: the answer with its whsec_
// secret shown this once, the event-type filter, ordering and rate limit, form bodies, and the 422 or
// 400 that stores nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../schemas/v2/webhooks.js';
import { wantsEvent } from '../../src/domain/webhook-endpoints.js';
import { failingFields, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import {
  expectHook,
  expectUsableSecret,
  hookPath,
  hooksPath,
  startWebhooksGateway,
  webhookHelpers,
  type Body,
} from './webhook-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { createHook, list, row, refused } = webhookHelpers(() => gw);

// No secret shown or stored here reaches a list, a show or the log (webhooks-update-delete-rotate.test.ts
// proves it of its own in a test).
beforeAll(async () => {
  ({ gw, close } = await startWebhooksGateway({ checkSecretsOnClose: true }));
});
afterAll(() => close?.());

// ---------------------------------------------------------------------------------------------
// Create and list

describe('POST /api/p2/companies/:companyId/webhooks', () => {
  it('201 {webhook} with a whsec_ secret shown this once, every event, inactive (pact-im/api-doc content/en/v2/company-webhooks/create-webhook.md)', async () => {
    const company = await newCompany(gw);
    const before = Date.now();
    const hook = await createHook(company, { url: 'https://example.com/in' });
    expect(hook).toEqual({
      id: expect.any(Number),
      company_id: company,
      source: 'api',
      url: 'https://example.com/in',
      event_types: null,
      active: false,
      disabled_reason: null,
      ordering: 'default',
      rate_limit: null,
      previous_secret_expires_at: null,
      created_at: expect.any(String),
      updated_at: hook.created_at,
      secret: expect.any(String),
    });
    expect(Date.parse(hook.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expectUsableSecret(hook.secret!);
    expect(row(hook.id)!.secret).toBe(hook.secret);

    const shown = await list(company);
    expect(shown).toEqual([{ ...hook, secret: undefined }].map(({ secret: _s, ...rest }) => rest));
    const one = expectHook(await gw.request('GET', hookPath(company, hook.id)));
    expect(one).not.toHaveProperty('secret');
  });

  it('gives every endpoint its own secret', async () => {
    const company = await newCompany(gw);
    const a = await createHook(company);
    const b = await createHook(company);
    expect(a.secret).not.toBe(b.secret);
  });

  it('takes event_types from the documented list, and active', async () => {
    const company = await newCompany(gw);
    const hook = await createHook(company, {
      event_types: ['message.create', 'auth.update', 'channel.qr_code', 'job.executed'],
      active: false,
    });
    expect(hook).toMatchObject({
      event_types: ['message.create', 'auth.update', 'channel.qr_code', 'job.executed'],
      active: false,
    });
    const all = await createHook(company, { event_types: [...WEBHOOK_EVENT_TYPES], active: true });
    expect(all.event_types).toEqual([...WEBHOOK_EVENT_TYPES]);
    const everything = await createHook(company, { event_types: null, active: true });
    expect(everything.event_types).toBeNull();
    // What the fan-out reads: every endpoint, the active ones sent to, the inactive one's deliveries held.
    expect(gw.gateway.store.webhooks.list(company).map((r) => [r.id, r.active])).toEqual([
      [hook.id, 0],
      [all.id, 1],
      [everything.id, 1],
    ]);
    expect(wantsEvent(row(hook.id)!, 'auth.update')).toBe(true);
    expect(wantsEvent(row(hook.id)!, 'message.update')).toBe(false);
    expect(wantsEvent(row(everything.id)!, 'message.update')).toBe(true);
  });

  it('accepts a form body with bracketed event_types', async () => {
    const company = await newCompany(gw);
    const res = await gw.request('POST', hooksPath(company), {
      form: 'url=https%3A%2F%2Fexample.com%2Fform&event_types[]=message.create&event_types[]=conversation.update&active=false',
    });
    expect(expectHook(res, 201)).toMatchObject({
      url: 'https://example.com/form',
      event_types: ['message.create', 'conversation.update'],
      active: false,
    });
  });

  it.each<[string, Body, string[]]>([
    ['no url', {}, ['url']],
    ['an empty url', { url: '' }, ['url']],
    ['a relative url', { url: '/hooks' }, ['url']],
    ['an ftp url', { url: 'ftp://example.com/x' }, ['url']],
    ['a url that is not text', { url: 5 }, ['url']],
    ['a url over 2048 characters', { url: `https://example.com/${'x'.repeat(2048)}` }, ['url']],
    [
      'an unknown event type',
      { url: 'https://e.com', event_types: ['message.create', 'message.explode'] },
      ['event_types/1'],
    ],
    ['an empty event_types', { url: 'https://e.com', event_types: [] }, ['event_types']],
    ['duplicate event types', { url: 'https://e.com', event_types: ['auth.update', 'auth.update'] }, ['event_types']],
    ['event_types as text', { url: 'https://e.com', event_types: 'message.create' }, ['event_types']],
    ['active as text in JSON', { url: 'https://e.com', active: 'yes' }, ['active']],
    ['a company_id of another company', { url: 'https://e.com', company_id: 999_999 }, ['company_id']],
    ['several wrong fields', { url: 'x', event_types: 3, active: 1 }, ['url', 'event_types', 'active']],
    ['an unknown ordering', { url: 'https://e.com', ordering: 'fifo' }, ['ordering']],
    ['a rate_limit of 0', { url: 'https://e.com', rate_limit: 0 }, ['rate_limit']],
    ['a fractional rate_limit', { url: 'https://e.com', rate_limit: 2.5 }, ['rate_limit']],
    ['a rate_limit over 1000', { url: 'https://e.com', rate_limit: 1001 }, ['rate_limit']],
    ['a rate_limit as text in JSON', { url: 'https://e.com', rate_limit: '5' }, ['rate_limit']],
  ])('422 for %s, one entry per field, nothing stored', async (_name, body, fields) => {
    const company = await newCompany(gw);
    const res = await refused(() => gw.request('POST', hooksPath(company), { json: body }), 422, 'validation_failed');
    expect(failingFields(res).sort()).toEqual([...fields].sort());
  });

  it('400 for malformed JSON', async () => {
    const company = await newCompany(gw);
    await refused(() => gw.request('POST', hooksPath(company), { json: '{"url":' }), 400, 'bad_request');
  });

  it('takes strict ordering and a rate limit, shows them, and changes or clears them on update', async () => {
    const company = await newCompany(gw);
    const hook = await createHook(company, { ordering: 'strict', rate_limit: 10 });
    expect(hook).toMatchObject({ ordering: 'strict', rate_limit: 10 });
    expect(row(hook.id)).toMatchObject({ ordering: 'strict', rate_limit: 10 });
    const cleared = expectHook(
      await gw.request('PATCH', hookPath(company, hook.id), { json: { ordering: 'default', rate_limit: null } }),
    );
    expect(cleared).toMatchObject({ ordering: 'default', rate_limit: null });
    // A field not sent keeps its value.
    expectHook(await gw.request('PATCH', hookPath(company, hook.id), { json: { rate_limit: 3 } }));
    expect(expectHook(await gw.request('PUT', hookPath(company, hook.id), { json: { active: false } }))).toMatchObject({
      ordering: 'default',
      rate_limit: 3,
      active: false,
    });
    const res = await refused(
      () => gw.request('PATCH', hookPath(company, hook.id), { json: { ordering: 'lifo', rate_limit: -1 } }),
      422,
      'validation_failed',
    );
    expect(failingFields(res).sort()).toEqual(['ordering', 'rate_limit']);
  });
});
