// Black-box HTTP tests of what v2 auths emit and never emit (contract section 4 "v2 Auths", section 6
// events; docs/design.md section 9 for the paths) against a real gateway on a temp SQLite file: a v1
// channel created or deleted writes the same auth events, a refused one none, and a credential sent
// is stored but reaches no answer, no event and no log line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import { authHelpers, authPath, authsPath, expectAuthAnswer, secret, startAuthsGateway } from './auth-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { action, create, eventsOf, refused } = authHelpers(() => gw);

// The secrets this file sends reach no log line and no event either (auths-create.test.ts proves it of its own).
beforeAll(async () => {
  ({ gw, close } = await startAuthsGateway({ checkSecretsOnClose: true }));
});
afterAll(() => close?.());

// ---------------------------------------------------------------------------------------------
// v1 channels write the same events

describe('v1 channel create and DELETE write auth events', () => {
  it('create and delete through v1 answer as before and write create and delete events', async () => {
    const company = await newCompany(gw);
    const res = await gw.request('POST', `/p1/companies/${company}/channels`, {
      json: { provider: 'chat_a_business', hosting_type: 'cloud', token: secret() },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ status: 'created', data: { external_id: expect.any(Number) } });
    const id = res.body.data.external_id as number;
    const del = await gw.request('DELETE', `/p1/companies/${company}/channels/${id}`);
    expect(del.body).toEqual({ status: 'deleted' });
    const events = eventsOf(id);
    expect(events.map((e) => [e.event, e.object.state])).toEqual([
      ['create', 'enabled'],
      ['delete', 'disabled'],
    ]);
    expect(events[0]!.object).toMatchObject({
      id,
      company_id: company,
      provider: 'chat_a_business',
      settings: { hosting_type: 'cloud' },
    });
  });

  it('a rejected or conflicting v1 create writes no event', async () => {
    const company = await newCompany(gw);
    await gw.request('POST', `/p1/companies/${company}/channels`, { json: { provider: 'chat_d' } });
    await refused(
      () => gw.request('POST', `/p1/companies/${company}/channels`, { json: { provider: 'chat_d' } }),
      409,
      'conflict',
    );
    await refused(
      () => gw.request('POST', `/p1/companies/${company}/channels`, { json: { provider: 'chat_b' } }),
      422,
      'validation_failed',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Secrets

describe('credentials are never shown, evented or logged', () => {
  it('a distinctive secret appears in no answer, no event and no log line', async () => {
    const company = await newCompany(gw);
    const s = secret('distinctive');
    const texts: string[] = [];
    const res = await create(company, {
      provider: 'social_c_business',
      token: s,
      phone: '79161234567',
      data: { id: '9', access_token: s },
    });
    const auth = expectAuthAnswer(res, 201);
    texts.push(res.text);
    expect(
      JSON.stringify(gw.gateway.store.db.prepare('SELECT credentials FROM channels WHERE id = ?').get(auth.id)),
    ).toContain(s);
    texts.push((await create(company, { provider: 'social_c_business', token: s, phone: '1', data: { s } })).text); // 409
    texts.push((await create(company, { provider: 'market_a', login: s })).text); // 422
    texts.push((await gw.request('GET', authsPath(company))).text);
    texts.push((await gw.request('GET', '/api/p2/auths')).text);
    texts.push((await gw.request('GET', authPath(company, auth.id))).text);
    texts.push((await action('PUT', company, auth.id, 'disable', { code: s })).text);
    texts.push((await action('PUT', company, auth.id, 'enable', { code: s })).text);
    texts.push((await gw.request('DELETE', authPath(company, auth.id))).text);
    const events = JSON.stringify(gw.gateway.store.db.prepare('SELECT payload FROM outbox').all());
    for (const text of [...texts, events, gw.logText()]) expect(text).not.toContain(s);
  });
});
