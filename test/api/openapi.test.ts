import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath } from '../../src/openapi/document.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  // With the admin API on, so that its routes are registered and checked too.
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: 'admin-token-for-openapi-tests' });
});
afterAll(() => gw.close());

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document served without a token', async () => {
    const res = await gw.request('GET', '/openapi.json', { token: null });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.servers).toEqual([{ url: gw.baseUrl }]);
  });

  it('has an entry for every registered route, and no entry without a route', async () => {
    const document = (await gw.request('GET', '/openapi.json', { token: null })).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const routes = gw.apiRoutes().map((route) => `${route.method.toLowerCase()} ${openApiPath(route.path)}`);
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m} ${path}`),
    );
    expect(
      routes.filter((r) => !documented.includes(r)),
      'routes missing from the OpenAPI document',
    ).toEqual([]);
    expect(
      documented.filter((d) => !routes.includes(d)),
      'documented operations without a route',
    ).toEqual([]);
  });

  it('leaves the admin operations out when the admin API is off', async () => {
    const plain = await startTestGateway();
    try {
      const document = (await plain.request('GET', '/openapi.json', { token: null })).body as {
        paths: Record<string, unknown>;
      };
      expect(Object.keys(document.paths).filter((p) => p.startsWith('/admin'))).toEqual([]);
      expect(Object.keys((await gw.request('GET', '/openapi.json', { token: null })).body.paths)).toContain(
        '/admin/deliveries',
      );
    } finally {
      await plain.close();
    }
  });

  it('describes request parameters from the schemas', async () => {
    const document = (await gw.request('GET', '/openapi.json', { token: null })).body;
    const create = document.paths['/p1/companies'].post;
    expect(create.requestBody.content['application/json'].schema.properties.name).toEqual({
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '\\S',
      'x-message': 'must not be blank',
    });
    const list = document.paths['/api/p2/conversations/{id}/messages'].get;
    expect(list.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
      'path:id',
      'query:company_id',
      'query:page',
      'query:per_page',
    ]);
    expect(list.parameters.find((p: { name: string }) => p.name === 'per_page').schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 500,
      default: 150,
    });
  });

  it('lists every error status each operation can answer', async () => {
    const document = (await gw.request('GET', '/openapi.json', { token: null })).body;
    const statuses = (path: string, method: string): number[] =>
      Object.keys(document.paths[path][method].responses).map(Number);
    expect(statuses('/p1/companies', 'post')).toEqual([201, 400, 401, 404, 408, 413, 414, 415, 422, 431]);
    expect(statuses('/api/p2/companies/{companyId}/attachments', 'post')).toEqual([
      201, 400, 401, 404, 408, 413, 414, 415, 422, 429, 431, 503,
    ]);
    expect(statuses('/api/p2/attachments', 'post')).toEqual([
      201, 400, 401, 404, 408, 413, 414, 415, 422, 429, 431, 503,
    ]);
    expect(statuses('/callbacks/chat_a_business/{channelId}', 'get')).toEqual([200, 400, 403, 404, 408, 414, 422, 431]);
    expect(statuses('/callbacks/{provider}/{channelId}', 'post')).toEqual([
      200, 400, 401, 404, 408, 413, 414, 415, 422, 431,
    ]);
    // The admin token's routes answer 429 while an address waits after wrong tokens (src/http/auth-throttle.ts).
    expect(statuses('/admin/pipeline', 'get')).toEqual([200, 400, 401, 404, 408, 414, 429, 431]);
    expect(statuses('/metrics', 'get')).toEqual([200, 400, 401, 404, 408, 414, 429, 431]);
    expect(statuses('/healthz', 'get')).toEqual([200, 400, 404, 408, 414, 431]);
    expect(document.paths['/p1/companies'].post.responses['415'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Errors',
    });
  });
});
