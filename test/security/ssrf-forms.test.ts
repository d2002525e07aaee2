// The private-address guard (src/net/ssrf.ts) on every IPv6 transition form and special-purpose
// range of issue 51, through the API: webhook endpoints created and updated (v2 and the portal's),
// the test POST, and attachments fetched by file_url. Each is refused by the guard, with a 422 in the
// error shape naming the range, before any connection is tried.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** Each form as a URL host, with the reason the guard gives. */
const FORMS: [string, string][] = [
  ['[::ffff:7f00:1]', '::ffff:7f00:1 is an IPv4-mapped IPv6 address embedding 127.0.0.1, a loopback address'],
  ['[::7f00:1]', '::7f00:1 is an IPv4-compatible IPv6 address embedding 127.0.0.1, a loopback address'],
  ['[2002:a00:1::1]', '2002:a00:1::1 is a 6to4 address embedding 10.0.0.1, a private address'],
  ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', '2001:0:4136:e378:8000:63bf:3fff:fdd2 is a Teredo address (2001::/32)'],
  ['[64:ff9b::a9fe:a9fe]', '64:ff9b::a9fe:a9fe is a NAT64 address embedding 169.254.169.254, a link-local address'],
  ['[64:ff9b:1::808:808]', '64:ff9b:1::808:808 is in the local-use NAT64 prefix 64:ff9b:1::/48'],
  ['[fec0::1]', 'fec0::1 is a site-local address (fec0::/10)'],
  ['[fd00::1]', 'fd00::1 is a unique-local address (fc00::/7)'],
  ['[::1]', '::1 is a loopback address'],
  ['192.88.99.1', '192.88.99.1 is a reserved address'],
  ['100.64.0.1', '100.64.0.1 is a carrier-grade NAT address (100.64.0.0/10)'],
  ['169.254.169.254', '169.254.169.254 is a link-local address'],
];

const refusal = (field: string, host: string, reason: string) =>
  `${field} may not point at ${host}: ${reason}, and the gateway sends nothing to private, loopback, link-local or reserved addresses unless GATEWAY_WEBHOOK_ALLOW_HOSTS names them`;

let gw: TestGateway;
let companyId: number;

beforeAll(async () => {
  gw = await startTestGateway();
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Guarded Co' } })).body.data
    .external_id as number;
});
afterAll(() => gw?.close());

const webhookCount = () =>
  (gw.gateway.store.db.prepare('SELECT count(*) AS n FROM webhook_endpoints').get() as { n: number }).n;

describe.each(FORMS)('the guard refuses %s', (host, reason) => {
  const url = `http://${host}:8080/hook`;

  it('when a webhook endpoint is created or moved there (v2), naming the range', async () => {
    const before = webhookCount();
    const created = await gw.request('POST', `/api/p2/companies/${companyId}/webhooks`, { json: { url } });
    expect(created.body).toEqual({
      errors: [
        {
          status: 422,
          code: 'validation_failed',
          title: 'Validation failed',
          detail: refusal('url', host, reason),
          source: { pointer: '/url' },
        },
      ],
    });
    expect(webhookCount()).toBe(before);

    const endpoint = await gw.request('POST', `/api/p2/companies/${companyId}/webhooks`, {
      json: { url: 'https://hooks.example.com/in' },
    });
    expect(endpoint.status).toBe(201);
    const moved = await gw.request('PATCH', `/api/p2/companies/${companyId}/webhooks/${endpoint.body.webhook.id}`, {
      json: { url },
    });
    expect(moved.body.errors).toEqual([
      {
        status: 422,
        code: 'validation_failed',
        title: 'Validation failed',
        detail: refusal('url', host, reason),
        source: { pointer: '/url' },
      },
    ]);
    expect(
      (await gw.request('GET', `/api/p2/companies/${companyId}/webhooks/${endpoint.body.webhook.id}`)).body.webhook.url,
    ).toBe('https://hooks.example.com/in');

    // The test POST of an endpoint whose stored address the guard refuses (stored before the check
    // existed) is refused by the guard, not sent and reported as a failed connection.
    gw.gateway.store.db.prepare('UPDATE webhook_endpoints SET url = ? WHERE id = ?').run(url, endpoint.body.webhook.id);
    const tested = await gw.request('POST', `/api/p2/companies/${companyId}/webhooks/${endpoint.body.webhook.id}/test`);
    expect(tested.body.errors).toEqual([
      {
        status: 422,
        code: 'validation_failed',
        title: 'Validation failed',
        detail: refusal('url', host, reason),
        source: { pointer: '/url' },
      },
    ]);
    expect(
      (await gw.request('DELETE', `/api/p2/companies/${companyId}/webhooks/${endpoint.body.webhook.id}`)).status,
    ).toBe(204);
  });

  it('as an attachment file_url, naming the range', async () => {
    const fetched = await gw.request('POST', '/api/p2/attachments', {
      json: { company_id: companyId, file_url: `${url.replace('/hook', '/photo.png')}` },
    });
    const [entry] = expectErrorShape(fetched, 422, 'validation_failed');
    expect(entry).toEqual({
      status: 422,
      code: 'validation_failed',
      title: 'Validation failed',
      detail: `file_url could not be downloaded: ${reason}, which attachments may not be fetched from: private, loopback, link-local or reserved addresses are refused.`,
      source: { pointer: '/file_url' },
    });
  });
});

it('lets a public NAT64 or 6to4 address through the guard (it is only refused for what it embeds)', async () => {
  const created = await gw.request('POST', `/api/p2/companies/${companyId}/webhooks`, {
    json: { url: 'http://[64:ff9b::808:808]/hook' },
  });
  expect(created.status, created.text).toBe(201);
  expect(
    (await gw.request('DELETE', `/api/p2/companies/${companyId}/webhooks/${created.body.webhook.id}`)).status,
  ).toBe(204);
});

it("refuses the forms in the portal's webhook create and update too", async () => {
  const link = await gw.request('POST', `/api/p2/companies/${companyId}/portal_sessions`);
  const opened = await gw.request('POST', '/portal/session', {
    token: null,
    json: { token: new URL(link.body.portal_session.url).hash.slice(1) },
  });
  expect(opened.status, opened.text).toBe(201);
  const session = {
    token: null,
    headers: {
      cookie: String(opened.headers['set-cookie']![0]).split(';')[0]!,
      'x-csrf-token': opened.body.session.csrf_token as string,
    },
  };
  const before = webhookCount();
  for (const [host, reason] of FORMS) {
    const created = await gw.request('POST', '/portal/api/webhooks', {
      ...session,
      json: { url: `https://${host}/hook` },
    });
    expect(created.body).toEqual({
      errors: [
        {
          status: 422,
          code: 'validation_failed',
          title: 'Validation failed',
          detail: refusal('url', host, reason),
          source: { pointer: '/url' },
        },
      ],
    });
  }
  expect(webhookCount()).toBe(before);
  const endpoint = await gw.request('POST', '/portal/api/webhooks', {
    ...session,
    json: { url: 'https://hooks.example.com/portal' },
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  const moved = await gw.request('PATCH', `/portal/api/webhooks/${endpoint.body.webhook.id}`, {
    ...session,
    json: { url: 'https://[::7f00:1]/hook' },
  });
  expect(moved.body.errors[0].detail).toBe(
    refusal('url', '[::7f00:1]', '::7f00:1 is an IPv4-compatible IPv6 address embedding 127.0.0.1, a loopback address'),
  );
});
