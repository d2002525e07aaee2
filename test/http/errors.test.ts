import { Writable } from 'node:stream';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppState } from '../../src/http/context.js';
import { renderErrors } from '../../src/http/render-errors.js';
import { requestLog } from '../../src/http/request-log.js';
import { createLogger } from '../../src/log.js';
import { expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

describe('error vocabulary over HTTP', () => {
  it('answers an unknown route with 404 in the error shape', async () => {
    const res = await gw.request('GET', '/p1/nothing-here');
    expect(res.body).toEqual({
      errors: [
        { status: 404, code: 'not_found', title: 'Not found', detail: 'No route matches GET /p1/nothing-here.' },
      ],
    });
  });

  it('answers an unknown route without a token with 404 too (no route, nothing to protect)', async () => {
    expectErrorShape(await gw.request('GET', '/nope', { token: null }), 404, 'not_found');
  });

  it('answers a wrong method with 405', async () => {
    const res = await gw.request('PATCH', '/p1/companies');
    expect(res.body).toEqual({
      errors: [
        {
          status: 405,
          code: 'method_not_allowed',
          title: 'Method not allowed',
          detail: 'PATCH is not allowed on /p1/companies.',
        },
      ],
    });
  });

  it('answers malformed JSON with 400', async () => {
    const res = await gw.request('POST', '/p1/companies', { json: '{"name": "x",' });
    expect(res.body).toEqual({
      errors: [
        { status: 400, code: 'bad_request', title: 'Bad request', detail: 'The request body is not valid JSON.' },
      ],
    });
  });

  it('answers a JSON body that is not an object with 400', async () => {
    expectErrorShape(await gw.request('POST', '/p1/companies', { json: '["name"]' }), 400, 'bad_request');
    expectErrorShape(await gw.request('POST', '/p1/companies', { json: '"name"' }), 400, 'bad_request');
  });

  it('answers a body over the limit with 413 and stores nothing', async () => {
    const res = await gw.request('POST', '/p1/companies', {
      json: { name: 'big', description: 'x'.repeat(1024 * 1024 + 10) },
    });
    expectErrorShape(res, 413, 'payload_too_large');
    const list = await gw.request('GET', '/p1/companies');
    expect(list.body.data.companies.map((c: { name: string }) => c.name)).not.toContain('big');
  });

  it('answers an unsupported media type with 415', async () => {
    const res = await gw.request('POST', '/p1/companies', {
      body: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expectErrorShape(res, 415, 'unsupported_media_type');
  });

  it('gives every answer a request id, reusing a sane incoming one', async () => {
    const res = await gw.request('GET', '/p1/companies', { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
    const generated = await gw.request('GET', '/p1/companies', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs one line per request with id, method, path, status and duration', async () => {
    await gw.request('GET', '/p1/companies', { headers: { 'x-request-id': 'log-line-check' } });
    const line = gw
      .logText()
      .split('\n')
      .find((l) => l.includes('"reqId":"log-line-check"'));
    expect(line).toBeDefined();
    const entry = JSON.parse(line!);
    expect(entry).toMatchObject({ msg: 'request', method: 'GET', path: '/p1/companies', status: 200, account: 1 });
    expect(typeof entry.ms).toBe('number');
  });
});

describe('unexpected failures', () => {
  it('answers 500 without internals and logs the error with the request id', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }));
    const app = new Koa<AppState>();
    app.silent = true;
    app.use(requestLog(logger));
    app.use(renderErrors());
    app.use(() => {
      throw new Error('secret internals: SQLITE_CORRUPT at /var/data');
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const response = await fetch(`http://127.0.0.1:${port}/boom`, { headers: { 'x-request-id': 'req-500' } });
      const body = await response.json();
      expect(response.status).toBe(500);
      expect(body).toEqual({
        errors: [
          {
            status: 500,
            code: 'internal_error',
            title: 'Internal server error',
            detail: 'An unexpected error occurred (request id req-500).',
          },
        ],
      });
      expect(JSON.stringify(body)).not.toContain('SQLITE');
      const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
      expect(logged).toMatchObject({ reqId: 'req-500', level: 50 });
      expect(logged.err.message).toContain('SQLITE_CORRUPT');
    } finally {
      server.close();
    }
  });
});

describe('input that would exhaust the server', () => {
  it('refuses a body nested deeper than 32 levels with 400, before anything walks it', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const res = await gw.request('POST', '/p1/companies', { json: `{"name":"deep","description":null,"x":${deep}}` });
    expect(expectErrorShape(res, 400, 'bad_request')[0]!.detail).toBe(
      'The request body is nested more than 32 levels deep.',
    );
    const list = await gw.request('GET', '/p1/companies');
    expect(list.body.data.companies.map((c: { name: string }) => c.name)).not.toContain('deep');
  });

  it('masks the storage key of file URLs in the request log', async () => {
    await gw.request('GET', '/files/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG/photo.png', { token: null });
    expect(gw.logText()).toContain('"path":"/files/[key]/photo.png"');
    expect(gw.logText()).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG');
  });
});
