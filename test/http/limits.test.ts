import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  expectErrorShape,
  startTestGateway,
  type TestGateway,
  type TestResponse,
} from '../helpers/gateway.js';
import { callbackInfo, postBot, rowCounts } from '../helpers/callbacks.js';
import { eventually } from '../helpers/wait.js';

/** The resource limits of docs/configuration.md ("Limits"), each at a small configured value. */
let gw: TestGateway;
let companyId: number;

beforeAll(async () => {
  gw = await startTestGateway({
    GATEWAY_HEADERS_TIMEOUT: '1s',
    GATEWAY_REQUEST_TIMEOUT: '2s',
    GATEWAY_UPLOAD_CONCURRENCY: '2',
    GATEWAY_JSON_MAX_DEPTH: '4',
    GATEWAY_QUERY_MAX_BYTES: '256',
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Limits' } })).body.data.external_id;
});
afterAll(() => gw.close());

interface RawExchange {
  /** Everything the server sent before it closed the connection. */
  text: string;
  /** Milliseconds from the connection to its close. */
  ms: number;
}

/** Writes `parts` on a raw connection (a pause of `gapMs` between them) and reads until the server closes it. */
function rawExchange(parts: (string | Buffer)[], gapMs = 0, giveUpMs = 8_000): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(gw.gateway.port, '127.0.0.1');
    let text = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${giveUpMs} ms; got ${JSON.stringify(text)}`));
    }, giveUpMs);
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
    });
    socket.on('error', () => undefined); // a reset after the answer still ends the exchange below
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ text, ms: Date.now() - started });
    });
    let index = 0;
    const writeNext = (): void => {
      if (index >= parts.length || socket.destroyed) return;
      socket.write(parts[index++]!);
      setTimeout(writeNext, gapMs);
    };
    writeNext();
  });
}

/** The status and JSON body of a raw HTTP answer. */
function parsed(exchange: RawExchange): TestResponse {
  const [head = '', body = ''] = exchange.text.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  return { status, headers: {}, text: body, body: body === '' ? undefined : JSON.parse(body) };
}

const companies = (): number =>
  (gw.gateway.store.db.prepare('SELECT count(*) AS n FROM companies').get() as { n: number }).n;
const partFiles = (): string[] => fs.readdirSync(path.join(gw.dataDir, 'attachments'));

describe('slow clients (GATEWAY_HEADERS_TIMEOUT, GATEWAY_REQUEST_TIMEOUT)', () => {
  it('answers 408 in the error shape and closes the connection of a client that never finishes its headers', async () => {
    const exchange = await rawExchange(['GET /healthz HTTP/1.1\r\n', 'Host: x\r\n']);
    expect(expectErrorShape(parsed(exchange), 408, 'request_timeout')[0]!.detail).toBe(
      'The request was not received in time.',
    );
    expect(exchange.ms).toBeGreaterThanOrEqual(900);
    expect(exchange.ms).toBeLessThan(4_000);
  });

  it('answers 408 to a body that stops coming, and stores nothing', async () => {
    const before = companies();
    const head = `POST /p1/companies HTTP/1.1\r\nHost: x\r\nX-Private-Api-Token: ${gw.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const exchange = await rawExchange([head, '{"name":"slow']);
    expectErrorShape(parsed(exchange), 408, 'request_timeout');
    expect(exchange.ms).toBeLessThan(5_000);
    expect(companies()).toBe(before);
  });

  /** Callback requests the gateway has finished with (timed by its HTTP metrics), whatever their answer. */
  async function callbacksFinished(): Promise<number> {
    const text = await (
      await fetch(`${gw.baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).text();
    return text
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('gateway_http_request_duration_seconds_count{') && line.includes('route="/callbacks/'),
      )
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  }

  it('a callback body cut short (the sender gone before its Content-Length) stores nothing, and the next one is taken', async () => {
    const botChannel = (
      await gw.request('POST', `/p1/companies/${companyId}/channels`, {
        json: { provider: 'chat_b', token: '123456:bot-token' },
      })
    ).body.data.external_id as number;
    const botSecret = (await callbackInfo(gw, botChannel)).secrets.secret_token!;
    const botBody = (text: string) =>
      JSON.stringify({
        update_id: 900001,
        message: { message_id: 1, chat: { id: 555, type: 'private', first_name: 'Ivo' }, date: 1749416383, text },
      });
    const before = rowCounts(gw.store);
    const finished = await callbacksFinished();
    await new Promise<void>((resolve) => {
      const request = http.request(`${gw.baseUrl}/callbacks/chat_b/${botChannel}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': '4000', 'x-bot-api-secret-token': botSecret },
      });
      request.on('error', () => resolve());
      request.write(botBody('never finished').slice(0, 40));
      // Gone a moment after the first bytes, so the gateway has begun reading the body.
      setTimeout(() => request.destroy(), 50);
    });
    await eventually('the gateway done with the cut request', async () => (await callbacksFinished()) === finished + 1);
    expect(rowCounts(gw.store)).toEqual(before);
    expect((await postBot(gw, botChannel, botBody('after the cut'), botSecret)).status).toBe(200);
  });

  it('answers 408 to an upload that stops coming, and removes its partial file', async () => {
    const boundary = 'slow-boundary';
    const head = `POST /api/p2/companies/${companyId}/attachments HTTP/1.1\r\nHost: x\r\nX-Private-Api-Token: ${gw.token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n`;
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\n\r\n${'x'.repeat(1000)}`;
    const exchange = await rawExchange([head, part]);
    expectErrorShape(parsed(exchange), 408, 'request_timeout');
    await eventually('the partial files removed', () => partFiles().length === 0, 5_000);
  });

  it('answers a head over 16 KiB with 431 in the error shape', async () => {
    const exchange = await rawExchange([`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`]);
    expectErrorShape(parsed(exchange), 431, 'headers_too_large');
  });
});

describe('uploads at once (GATEWAY_UPLOAD_CONCURRENCY)', () => {
  it("answers 503 with Retry-After while every slot of the account is taken, and takes uploads again once they are free; another account's are unaffected", async () => {
    const boundary = 'held-boundary';
    const head = `POST /api/p2/companies/${companyId}/attachments HTTP/1.1\r\nHost: x\r\nX-Private-Api-Token: ${gw.token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n`;
    const held = [0, 1].map(() => {
      const socket = net.connect(gw.gateway.port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        `${head}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.bin"\r\n\r\nabc`,
      );
      return socket;
    });
    await eventually('the partial files of both held uploads', () => partFiles().length === 2, 5_000);
    const form = new FormData();
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
    const refused = await fetch(`${gw.baseUrl}/api/p2/companies/${companyId}/attachments`, {
      method: 'POST',
      body: form,
      headers: { 'x-private-api-token': gw.token },
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      errors: [
        {
          status: 503,
          code: 'service_unavailable',
          title: 'Service unavailable',
          detail: 'As many uploads as this gateway takes at once for one account are under way; try again shortly.',
        },
      ],
    });
    // Slots are held per account: another account's upload does not wait for these.
    const other = await gw.createAccount('other uploads');
    const otherCompany = (await gw.request('POST', '/p1/companies', { token: other, json: { name: 'Other uploads' } }))
      .body.data.external_id as number;
    const elsewhere = await fetch(`${gw.baseUrl}/api/p2/companies/${otherCompany}/attachments`, {
      method: 'POST',
      body: form,
      headers: { 'x-private-api-token': other },
    });
    expect(elsewhere.status).toBe(201);
    for (const socket of held) socket.destroy();
    await eventually(
      'the partial files removed',
      () => partFiles().filter((name) => name.endsWith('.part')).length === 0,
      5_000,
    );
    const taken = await fetch(`${gw.baseUrl}/api/p2/companies/${companyId}/attachments`, {
      method: 'POST',
      body: form,
      headers: { 'x-private-api-token': gw.token },
    });
    expect(taken.status).toBe(201);
  });
});

describe('JSON depth and query size (GATEWAY_JSON_MAX_DEPTH, GATEWAY_QUERY_MAX_BYTES)', () => {
  it('refuses JSON nested deeper than the configured depth with 400, and takes it at that depth', async () => {
    const deep = await gw.request('POST', '/p1/companies', { json: { name: 'deep', x: { a: { b: { c: {} } } } } });
    expect(expectErrorShape(deep, 400, 'bad_request')[0]!.detail).toBe(
      'The request body is nested more than 4 levels deep.',
    );
    expect((await gw.request('POST', '/p1/companies', { json: { name: 'shallow', x: { a: { b: {} } } } })).status).toBe(
      201,
    );
  });

  it('answers 414 to a query string over the limit, and reads one at the limit', async () => {
    const at = `per=5&from=${'1'.repeat(256 - 'per=5&from='.length)}`;
    expect((await gw.request('GET', `/p1/companies?${at}`)).status).toBe(200);
    const over = await gw.request('GET', `/p1/companies?${at}1`);
    expect(expectErrorShape(over, 414, 'uri_too_long')[0]!.detail).toBe('The query string is longer than 256 bytes.');
  });

  it('refuses a form body that qs would cut (too many fields, too long an array) with 400, and stores nothing', async () => {
    const before = (await gw.request('GET', '/p1/companies?per=100')).body.data.length;
    const fields = Array.from({ length: 1_001 }, (_, i) => `f${i}=1`).join('&');
    const tooMany = await gw.request('POST', '/p1/companies', { form: `name=wide&${fields}` });
    expect(expectErrorShape(tooMany, 400, 'bad_request')[0]!.detail).toBe(
      'The form body has more than 1000 parameters, an array of more than 100 items or brackets nested more than 5 deep.',
    );
    const longArray = Array.from({ length: 102 }, () => 'x[]=1').join('&');
    expectErrorShape(await gw.request('POST', '/p1/companies', { form: `name=long&${longArray}` }), 400, 'bad_request');
    expect((await gw.request('GET', '/p1/companies?per=100')).body.data.length).toBe(before);
    expect((await gw.request('POST', '/p1/companies', { form: 'name=narrow&template[id]=1' })).status).toBe(201);
  });
});
