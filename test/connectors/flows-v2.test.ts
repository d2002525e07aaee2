// The v2 auth connection flows against the fake provider, through HTTP alone (the events arrive as
// each company's webhooks, test/helpers/company-events.ts), so it runs against a cluster too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observeCompanyEvents, type CompanyEvents } from '../helpers/company-events.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import {
  ADMIN_TOKEN,
  expectErrorShape,
  failingFields,
  startTestGateway,
  TO_RECEIVERS,
  type TestGateway,
} from '../helpers/gateway.js';
import { readQr } from '../helpers/qr.js';
import { eventually } from '../helpers/wait.js';
import { newCompany } from '../helpers/seed.js';

let gw: TestGateway;
let fake: FakeProvider;

beforeAll(async () => {
  fake = await new FakeProvider().start();
  gw = await startTestGateway({ ...fake.env(), ...TO_RECEIVERS });
});
afterAll(async () => {
  await gw.close();
  await fake.close();
  for (const observer of observers) await observer.close();
});

const observers: CompanyEvents[] = [];
/** Every event of the company the test made last. */
let events: CompanyEvents;
const count = () => events.count();
const since = (before: number) => events.since(before);
/** A company whose events the test reads next. */
async function observedCompany(): Promise<number> {
  const company = await newCompany(gw);
  events = await observeCompanyEvents(gw, company);
  observers.push(events);
  return company;
}
const auths = (company: number) => `/api/p2/companies/${company}/auths`;
const admin = { token: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };

describe('creating an auth starts the connection', () => {
  // pact-im/api-doc content/en/v2/auths/confirm-auth.md: "the API response contains a qr field with a Base64-encoded QR image";
  // the same QR in the update webhook, a new one when it expires.
  it('QR (chat_d): the answer and an auth.update carry the QR as a PNG data URL; connector qr and state callbacks follow, each with its event', async () => {
    const company = await observedCompany();
    const before = await count();
    const res = await gw.request('POST', auths(company), { json: { company_id: company, provider: 'chat_d' } });
    expect(res.status).toBe(201);
    const id = res.body.auth.id;
    expect(res.body.auth).toMatchObject({
      id,
      provider: 'chat_d',
      state: 'unconfirmed',
      confirmation: 'qr',
      qr: expect.stringMatching(/^data:image\/png;base64,/),
    });
    expect(readQr(res.body.auth.qr)).toBe(`2@fakeqr${id}`);
    let emitted = await since(before);
    expect(emitted.map((e) => e.name)).toEqual(['auth.create', 'auth.update']);
    expect(emitted[1]!.body.object).toMatchObject({ id, state: 'unconfirmed', qr: res.body.auth.qr });

    const refresh = await count();
    expect(
      await fake.connectorCallback(id, {
        type: 'qr',
        qr: '2@refreshed-qr',
        expires_at: Math.floor(Date.now() / 1000) + 20,
      }),
    ).toBe(200);
    expect(await fake.connectorCallback(id, { type: 'state', state: 'enabled' })).toBe(200);
    expect(await fake.connectorCallback(id, { type: 'state', state: 'enabled' })).toBe(200);
    expect(
      await fake.connectorCallback(id, { type: 'state', state: 'disabled', reason: 'logged out on the phone' }),
    ).toBe(200);
    emitted = await since(refresh);
    const shown = (qr: string | undefined) => (qr === undefined ? undefined : readQr(qr));
    expect(
      emitted.map((e) => [
        e.name,
        (e.body.object as { state: string }).state,
        shown((e.body.object as { qr?: string }).qr),
      ]),
    ).toEqual([
      ['auth.update', 'unconfirmed', '2@refreshed-qr'],
      ['auth.update', 'enabled', undefined],
      ['auth.update', 'disabled', undefined],
    ]);
    expect((await gw.request('GET', `${auths(company)}/${id}`)).body.auth.state).toBe('disabled');
    // The v2 auth gets no v1 payloads.
    expect(emitted.some((e) => e.name.startsWith('channel.'))).toBe(false);
  });

  it('code (chat_a with phone_number): the connector pairing code is in the answer; confirm asks for a fresh one', async () => {
    const company = await observedCompany();
    fake.sessionAnswers.chat_a = { code: 'PAIR-0001', state: 'pending' };
    try {
      const res = await gw.request('POST', auths(company), {
        json: { provider: 'chat_a', phone_number: '79161234567' },
      });
      expect(res.status).toBe(201);
      expect(res.body.auth).toMatchObject({
        confirmation: 'pairing_code',
        code: 'PAIR-0001',
        settings: { phone: '79161234567' },
      });
      expect(fake.session(res.body.auth.id)!.body.settings).toEqual({ phone: '79161234567' });
      const before = await count();
      const confirm = await gw.request('POST', `${auths(company)}/${res.body.auth.id}/confirm`, { json: {} });
      expect(confirm.status).toBe(200);
      expect(confirm.body.auth).toMatchObject({ state: 'unconfirmed', code: 'ABCD-EFGH' });
      expect((await since(before)).map((e) => [e.name, (e.body.object as { code?: string }).code])).toEqual([
        ['auth.update', 'ABCD-EFGH'],
      ]);
    } finally {
      delete fake.sessionAnswers.chat_a;
    }
  });

  it('OAuth: the answer and the update carry oauth_provider_url', async () => {
    const company = await observedCompany();
    fake.sessionAnswers.social_c_business = {
      oauth_provider_url: 'https://auth.social-c.example/oauth/authorize?client_id=1234',
      state: 'pending',
    };
    const before = await count();
    const res = await gw.request('POST', auths(company), {
      json: { provider: 'social_c_business', token: 't', phone: '79161234567', data: { id: '1' } },
    });
    expect(res.status).toBe(201);
    expect(res.body.auth.oauth_provider_url).toBe('https://auth.social-c.example/oauth/authorize?client_id=1234');
    const update = (await since(before)).find((e) => e.name === 'auth.update')!;
    expect(update.body.object).toMatchObject({
      oauth_provider_url: 'https://auth.social-c.example/oauth/authorize?client_id=1234',
    });
  });

  it('a connector that cannot be reached leaves the auth created, and confirm starts it again', async () => {
    const company = await observedCompany();
    fake.script('connector', { status: 503, body: { error: { code: 'busy', title: 'busy' } } });
    const res = await gw.request('POST', auths(company), { json: { provider: 'chat_d' } });
    expect(res.status).toBe(201);
    expect(res.body.auth.qr).toBeUndefined();
    const confirm = await gw.request('POST', `${auths(company)}/${res.body.auth.id}/confirm`, { json: {} });
    expect(confirm.body.auth.state).toBe('unconfirmed');
    expect(readQr(confirm.body.auth.qr)).toBe(`2@fakeqr${res.body.auth.id}`);
  });
});

describe('enable with the code the provider sent', () => {
  it('chat_b_personal by phone: a wrong code is refused (422 provider_refused), the right one enables with an update', async () => {
    const company = await observedCompany();
    fake.sessionAnswers.chat_b_personal = { state: 'pending' };
    const res = await gw.request('POST', auths(company), {
      json: { provider: 'chat_b_personal', phone_number: '+79161234567' },
    });
    expect(res.body.auth).toMatchObject({ confirmation: 'code', state: 'unconfirmed' });
    expect(res.body.auth.qr).toBeUndefined();
    const id = res.body.auth.id;
    expect(failingFields(await gw.request('PUT', `${auths(company)}/${id}/enable`, { json: {} }))).toEqual(['code']);
    const before = await count();
    expectErrorShape(
      await gw.request('PUT', `${auths(company)}/${id}/enable`, { json: { code: '00000' } }),
      422,
      'provider_refused',
    );
    expect(await count()).toBe(before);
    const enabled = await gw.request('PATCH', `${auths(company)}/${id}/enable`, { json: { code: 12345 } });
    expect(enabled.status).toBe(200);
    expect(enabled.body.auth.state).toBe('enabled');
    expect(fake.callsOf('connector', `/sessions/${id}/confirm`).at(-1)!.body).toEqual({ type: 'code', code: '12345' });
    const emitted = await since(before);
    expect(emitted.map((e) => [e.name, (e.body.object as { state: string }).state])).toEqual([
      ['auth.update', 'enabled'],
    ]);
    // Then the ordinary state machine: disable and enable again, without the connector.
    expect((await gw.request('PUT', `${auths(company)}/${id}/disable`, { json: {} })).body.auth.state).toBe('disabled');
    expect((await gw.request('PUT', `${auths(company)}/${id}/enable`, { json: {} })).body.auth.state).toBe('enabled');
  });

  it('deleting an auth ends its session at the connector', async () => {
    const company = await observedCompany();
    const id = (await gw.request('POST', auths(company), { json: { provider: 'chat_d' } })).body.auth.id;
    expect((await gw.request('DELETE', `${auths(company)}/${id}`, { json: {} })).status).toBe(200);
    await eventually('the session is ended', () =>
      fake.callsOf('connector', `/sessions/${id}`).some((c) => c.method === 'DELETE'),
    );
  });
});

describe('templates of chat_a_business', () => {
  it('are synced on create and on demand; substitutions_count comes from the {{n}} markers', async () => {
    const company = await observedCompany();
    fake.templates = [
      {
        id: '111',
        name: 'welcome',
        language: 'en',
        status: 'APPROVED',
        namespace: 'ns1',
        components: [
          { type: 'HEADER', format: 'TEXT', text: 'Hi' },
          { type: 'BODY', text: 'Hello {{1}}, welcome to {{2}}!' },
        ],
      },
      {
        id: '222',
        name: 'plain',
        language: 'en_US',
        status: 'APPROVED',
        components: [{ type: 'BODY', text: 'No markers here' }],
      },
      {
        id: '333',
        name: 'pending',
        language: 'en',
        status: 'PENDING',
        components: [{ type: 'BODY', text: 'Not yet {{1}}' }],
      },
    ];
    const id = (
      await gw.request('POST', auths(company), {
        json: {
          provider: 'chat_a_business',
          hosting_type: 'cloud',
          token: 'EAAT',
          vendor_channel_id: 'PN5',
          vendor_client_id: 'WABA5',
        },
      })
    ).body.auth.id;
    const list = async () =>
      (await gw.request('GET', `/api/p2/biz_templates?company_ids[]=${company}&sort[position]=asc`)).body
        .biz_templates as Record<string, unknown>[];
    await eventually('templates are synced', async () => (await list()).length === 2);
    expect(fake.callsOf('cloud', '/v21.0/WABA5/message_templates').at(-1)!.headers.authorization).toBe('Bearer EAAT');
    expect(await list()).toEqual([
      expect.objectContaining({
        name: 'welcome',
        biz_template_id: '111',
        body: 'Hello {{1}}, welcome to {{2}}!',
        substitutions_count: 2,
        header_content_type: 'text',
        header: 'Hi',
        namespace: 'ns1',
        position: 0,
      }),
      expect.objectContaining({
        name: 'plain',
        biz_template_id: '222',
        substitutions_count: 0,
        header: null,
        position: 1,
      }),
    ]);

    fake.templates = [
      {
        id: '222',
        name: 'plain',
        language: 'en_US',
        status: 'APPROVED',
        components: [{ type: 'BODY', text: 'Now {{1}} {{3}}' }],
      },
    ];
    const sync = await gw.request('POST', `/admin/channels/${id}/templates/sync`, admin);
    expect(sync.status).toBe(200);
    expect(sync.body).toEqual({ channel_id: id, synced: 1, removed: 1 });
    expect(await list()).toEqual([
      expect.objectContaining({ biz_template_id: '222', body: 'Now {{1}} {{3}}', substitutions_count: 3, position: 0 }),
    ]);

    const bot = (await gw.request('POST', auths(company), { json: { provider: 'chat_b', token: '1:b' } })).body.auth.id;
    expectErrorShape(await gw.request('POST', `/admin/channels/${bot}/templates/sync`, admin), 422, 'wrong_provider');
    expectErrorShape(
      await gw.request('POST', `/admin/channels/${id}/templates/sync`, { token: null }),
      401,
      'unauthorized',
    );
    fake.script('cloud', { status: 500, body: { error: { code: 1, message: 'down' } } });
    expectErrorShape(
      await gw.request('POST', `/admin/channels/${id}/templates/sync`, admin),
      502,
      'provider_unavailable',
    );
  });
});
