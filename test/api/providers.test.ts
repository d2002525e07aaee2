import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerListResponse } from '../../schemas/v2/providers.js';
import { renderProviderDoc } from '../../src/openapi/provider-doc.js';
import { expectErrorShape, failingFields, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { compileSchema, schemaErrors } from '../helpers/schemas.js';
import { seedConversation } from '../helpers/seed.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

const MB = 1024 * 1024;

/** A company with one enabled channel of `channel.provider`, and a conversation on it. */
async function conversationOn(channel: Record<string, unknown>) {
  const company = await gw.request('POST', '/p1/companies', {
    json: { name: `Providers ${String(channel.provider)}` },
  });
  const companyId = company.body.data.external_id as number;
  const created = await gw.request('POST', `/p1/companies/${companyId}/channels`, { json: channel });
  expect(created.status).toBe(201);
  return seedConversation(gw, { companyId, channelId: created.body.data.external_id as number });
}

function attachment(companyId: number, mimeType: string, size: number, pushToTalk = false): number {
  return gw.gateway.store.attachments.insert({
    companyId,
    storageKey: randomBytes(32).toString('base64url'),
    fileName: 'file.bin',
    mimeType,
    size,
    width: null,
    height: null,
    pushToTalk,
  }).id;
}

describe('GET /api/p2/providers', () => {
  it('lists every provider with what it supports, in the documented shape', async () => {
    const res = await gw.request('GET', '/api/p2/providers');
    expect(res.status).toBe(200);
    const validate = compileSchema(providerListResponse);
    expect(validate(res.body), schemaErrors(validate)).toBe(true);
    expect(res.body.providers.map((p: { provider: string }) => p.provider)).toEqual([
      'chat_a',
      'chat_a_business',
      'chat_b',
      'chat_b_personal',
      'chat_c',
      'chat_d',
      'social_a',
      'social_a_direct',
      'social_b',
      'social_c',
      'social_c_business',
      'market_a',
    ]);
    expect(res.body.providers[1]).toEqual({
      provider: 'chat_a_business',
      authentication: ['token', 'vendor_channel_id', 'oauth'],
      history_sync: false,
      writing_first: { provider: true, gateway: 'outgoing' },
      templates: { provider: true, gateway: 'outgoing' },
      groups: { provider: false, gateway: 'none' },
      reactions: { provider: true, gateway: 'both' },
      edits: { provider: false, gateway: 'none' },
      deletes: { provider: false, gateway: 'none' },
      read_receipts: { provider: true, gateway: 'outgoing' },
      attachments: [
        { kind: 'image', max_bytes: 5 * MB },
        { kind: 'video', max_bytes: 16 * MB },
        { kind: 'audio', max_bytes: 16 * MB },
        { kind: 'voice', max_bytes: 16 * MB },
        { kind: 'document', max_bytes: 100 * MB },
      ],
    });
  });

  it('says which providers the gateway writes first through and deletes at (or hears deletes from): the ones the API takes', async () => {
    const { providers } = (await gw.request('GET', '/api/p2/providers')).body as {
      providers: { provider: string; writing_first: { gateway: string }; deletes: { gateway: string } }[];
    };
    expect(providers.filter((p) => p.writing_first.gateway !== 'none').map((p) => p.provider)).toEqual([
      'chat_a',
      'chat_a_business',
      'chat_b_personal',
      'chat_d',
      'social_a_direct',
    ]);
    const out = (gateway: string) => gateway === 'both' || gateway === 'outgoing';
    expect(providers.filter((p) => out(p.deletes.gateway)).map((p) => p.provider)).toEqual([
      'chat_a',
      'chat_b_personal',
      'chat_d',
    ]);
    expect(providers.filter((p) => p.deletes.gateway === 'incoming').map((p) => p.provider)).toEqual([
      'chat_b',
      'social_a',
      'social_a_direct',
      'social_c',
    ]);
    const openapi = (await gw.request('GET', '/openapi.json', { token: null })).body;
    const body = openapi.paths['/api/p2/messages'].post.requestBody.content['application/json'].schema;
    expect(body.properties.provider.enum).toEqual([
      'chat_a',
      'chat_a_business',
      'chat_b_personal',
      'chat_d',
      'social_a_direct',
    ]);
  });

  it('answers 401 without the API token', async () => {
    expectErrorShape(await gw.request('GET', '/api/p2/providers', { token: null }), 401, 'unauthorized');
  });

  it('is described in /openapi.json with the catalog as its example', async () => {
    const openapi = (await gw.request('GET', '/openapi.json', { token: null })).body;
    const operation = openapi.paths['/api/p2/providers'].get;
    const schema = operation.responses['200'].content['application/json'].schema;
    expect(schema.examples).toEqual([(await gw.request('GET', '/api/p2/providers')).body]);
  });
});

describe('docs/providers.md', () => {
  it('is the table as npm run docs:providers renders it', () => {
    const written = readFileSync(new URL('../../docs/providers.md', import.meta.url), 'utf8');
    expect(written, 'docs/providers.md differs from the table: run npm run docs:providers').toBe(renderProviderDoc());
  });
});

describe('sending an attachment the provider does not take', () => {
  const send = (s: { companyId: number; conversationId: number }, attachmentId: number) =>
    gw.request('POST', `/api/p2/conversations/${s.conversationId}/messages`, {
      json: { company_id: s.companyId, attachment_ids: [attachmentId] },
    });

  it('refuses a kind the provider has no way to send, naming the provider, and stores nothing', async () => {
    const s = await conversationOn({ provider: 'market_a', login: 'seller', password: 'secret' });
    const pdf = attachment(s.companyId, 'application/pdf', 1000);
    const before = gw.gateway.store.db.prepare('SELECT count(*) AS n FROM messages').get();
    const res = await send(s, pdf);
    expect(failingFields(res)).toEqual(['attachment_ids/0']);
    expect(res.body.errors[0].detail).toBe(
      `attachment ${pdf} is a document; market_a takes image (GET /api/p2/providers)`,
    );
    expect(gw.gateway.store.db.prepare('SELECT count(*) AS n FROM messages').get()).toEqual(before);
    expect(gw.gateway.store.attachments.findForCompany(s.companyId, pdf)!.message_id).toBeNull();
    expect((await send(s, attachment(s.companyId, 'image/jpeg', 1000))).status).toBe(201);
  });

  it('refuses a file above the provider limit for its kind, and takes one at the limit', async () => {
    const s = await conversationOn({ provider: 'chat_a_business', hosting_type: 'cloud', token: 'EAAG-test' });
    const big = attachment(s.companyId, 'image/png', 5 * MB + 1);
    const res = await send(s, big);
    expect(failingFields(res)).toEqual(['attachment_ids/0']);
    expect(res.body.errors[0].detail).toBe(
      `attachment ${big} is ${5 * MB + 1} bytes; chat_a_business takes image files of at most ${5 * MB} bytes`,
    );
    expect((await send(s, attachment(s.companyId, 'image/png', 5 * MB))).status).toBe(201);
    // A voice note is its own kind: audio/ogg with push_to_talk, up to 16 MB there.
    expect((await send(s, attachment(s.companyId, 'audio/ogg', 16 * MB, true))).status).toBe(201);
  });

  it('refuses a voice note where the provider takes none', async () => {
    const s = await conversationOn({ provider: 'social_b', token: 'page-token' });
    const voice = attachment(s.companyId, 'audio/ogg', 1000, true);
    const res = await send(s, voice);
    expect(res.body.errors[0].detail).toBe(
      `attachment ${voice} is a voice; social_b takes image, video, audio, document (GET /api/p2/providers)`,
    );
    expect((await send(s, attachment(s.companyId, 'audio/ogg', 1000))).status).toBe(201);
  });
});
