// Black-box HTTP tests of what a v1 channel keeps of its credentials (contract section 4 "v1 Channels",
// "Create channel variants") against a real gateway on a temp SQLite file: tokens, logins, passwords
// and social data are stored, never answered nor logged, whether the request succeeds or is refused;
// a channel stores the fields of its variant alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failingFields, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import {
  allSecrets,
  channelHelpers,
  channelPath,
  channelsPath,
  expectCreated,
  secret,
  startChannelsGateway,
  type Body,
} from './channel-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { createChannel, list, storedChannel } = channelHelpers(() => gw);

beforeAll(async () => {
  ({ gw, close } = await startChannelsGateway());
});
afterAll(() => close?.());

// ---------------------------------------------------------------------------------------------
// Secrets

describe('channel credentials are never returned nor logged', () => {
  // [name, create body, PUT body, a create body that is rejected although it carries the secret, a rejected PUT body]
  const secretVariants: [string, (s: string) => Body, (s: string) => Body, (s: string) => Body, (s: string) => Body][] =
    [
      [
        'social_b token',
        (s) => ({ provider: 'social_b', token: s }),
        (s) => ({ token: s }),
        (s) => ({ provider: 'social_b', token: s.padEnd(5000, 'x') }),
        (s) => ({ token: s.padEnd(5000, 'x') }),
      ],
      [
        'chat_a_business token',
        (s) => ({ provider: 'chat_a_business', hosting_type: 'cloud', token: s }),
        (s) => ({ token: s }),
        (s) => ({ provider: 'chat_a_business', hosting_type: 'hybrid', token: s }),
        (s) => ({ token: s.padEnd(5000, 'x') }),
      ],
      [
        'market_a login and password',
        (s) => ({ provider: 'market_a', login: `login-${s}`, password: s }),
        (s) => ({ login: `login-${s}`, password: s }),
        (s) => ({ provider: 'market_a', login: `login-${s}` }),
        (s) => ({ password: s }),
      ],
      [
        'social_c login and password',
        (s) => ({ provider: 'social_c', login: `login-${s}`, password: s }),
        (s) => ({ login: `login-${s}`, password: s }),
        (s) => ({ provider: 'social_c', password: s }),
        (s) => ({ login: s, password: 7 }),
      ],
      [
        'social_c_business token and data',
        (s) => ({ provider: 'social_c_business', token: s, phone: '79161234567', data: { id: '1', access: s } }),
        (s) => ({ token: s }),
        (s) => ({ provider: 'social_c_business', token: s, phone: '79161234567', data: `profile-${s}` }),
        (s) => ({ token: s.padEnd(5000, 'x') }),
      ],
    ];

  it.each(secretVariants)('%s', async (_name, create, update, invalidCreateBody, invalidUpdate) => {
    const company = await newCompany(gw);
    const texts: string[] = [];
    const s1 = secret();
    const created = await createChannel(company, create(s1));
    expectCreated(created);
    const id = created.body.data.external_id as number;
    texts.push(created.text);
    // Prove the secret was really sent and kept.
    expect(storedChannel(id).credentials).toContain(s1);

    const s2 = secret();
    const conflict = await createChannel(company, create(s2));
    expect(conflict.status).toBe(409);
    texts.push(conflict.text);

    const s3 = secret();
    const invalid = await createChannel(await newCompany(gw), { ...create(s3), provider: 'no_such_provider' });
    expect(invalid.status).toBe(422);
    texts.push(invalid.text);

    const s4 = secret();
    const invalidCreate = await createChannel(await newCompany(gw), invalidCreateBody(s4));
    expect(invalidCreate.status).toBe(422);
    texts.push(invalidCreate.text);

    texts.push((await list(company)).text);
    texts.push((await list(company, '?per=1&sort_direction=desc')).text);

    const s5 = secret();
    const updated = await gw.request('PUT', channelPath(company, id), { json: update(s5) });
    expect(updated.status, updated.text).toBe(200);
    texts.push(updated.text);
    expect(storedChannel(id).credentials).toContain(s5);

    const s6 = secret();
    const badUpdate = await gw.request('PUT', channelPath(company, id), { json: invalidUpdate(s6) });
    expect(badUpdate.status).toBe(422);
    texts.push(badUpdate.text);

    for (const action of ['request_code', 'confirm']) {
      texts.push((await gw.request('POST', `${channelPath(company, id)}/${action}`, { json: { password: s5 } })).text);
    }
    texts.push((await gw.request('DELETE', channelPath(company, id))).text);
    texts.push((await list(company)).text);

    const log = gw.logText();
    expect(log.length).toBeGreaterThan(0);
    for (const s of [s1, s2, s3, s4, s5, s6]) {
      for (const text of texts) expect(text).not.toContain(s);
      expect(log).not.toContain(s);
    }
  });

  it('form-encoded secrets are not logged either', async () => {
    const company = await newCompany(gw);
    const s = secret();
    const res = await gw.request('POST', channelsPath(company), { form: `provider=chat_b&token=${s}` });
    expectCreated(res);
    const bad = await gw.request('POST', channelsPath(await newCompany(gw)), {
      form: `provider=social_c_business&token=${s}&phone=1&data=${s}`,
    });
    expect(bad.status).toBe(422);
    expect(res.text + bad.text + (await list(company)).text).not.toContain(s);
    expect(gw.logText()).not.toContain(s);
  });

  it('no secret sent anywhere in this file reached the log', () => {
    expect(allSecrets.length).toBeGreaterThan(10);
    const log = gw.logText();
    expect(allSecrets.filter((s) => log.includes(s))).toEqual([]);
  });
});

describe('what a channel stores', () => {
  it('keeps only the fields of the provider variant, never extra ones a client sends', async () => {
    const company = (await gw.request('POST', '/p1/companies', { json: { name: 'Extra fields' } })).body.data
      .external_id as number;
    const created = await gw.request('POST', `/p1/companies/${company}/channels`, {
      json: {
        provider: 'chat_a',
        sync_messages_from: new Date().toISOString(),
        unexpected: 'x',
        phone_number: '79161234567',
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.external_id as number;
    const put = await gw.request('PUT', `/p1/companies/${company}/channels/${id}`, {
      json: { sync_messages_from: new Date().toISOString(), phone: '79161234567', via_qr_code: 'x' },
    });
    expect(put.status).toBe(200);
    const row = gw.gateway.store.channels.find(company, id)!;
    expect(Object.keys(row.settings)).toEqual(['sync_messages_from']);
    expect(row.credentials).toEqual({});
  });

  it('answers 422, not 500, for a numeric sync_messages_from beyond the dates there are', async () => {
    const company = (await gw.request('POST', '/p1/companies', { json: { name: 'Far future' } })).body.data
      .external_id as number;
    const res = await gw.request('POST', `/p1/companies/${company}/channels`, {
      json: { provider: 'chat_d', sync_messages_from: 9_000_000_000_000 },
    });
    expect(failingFields(res)).toEqual(['sync_messages_from']);
  });
});
