// Attachment upload at the hosted service's documented path (pact-im/api-doc
// content/ru/v2/attachments/upload-attachment.md, the object of content/en/v2/attachments/index.md):
// the company in the body, a multipart file or a file_url, through the real HTTP API.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectErrorShape,
  failingFields,
  startTestGateway,
  type TestGateway,
  type TestResponse,
} from '../helpers/gateway.js';
import { startHttpServer, type HttpServer } from '../helpers/receiver.js';

const MAX_BYTES = 4096;
const fixture = (name: string): Buffer => fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', name));

let gw: TestGateway;
let companyId: number;
let files: HttpServer;
let filesUrl: string;

beforeAll(async () => {
  gw = await startTestGateway({
    GATEWAY_ATTACHMENT_MAX_BYTES: String(MAX_BYTES),
    GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    GATEWAY_ATTACHMENT_FETCH_TIMEOUT: '700ms',
  });
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Uploads Co' } })).body.data
    .external_id as number;
  // What file_url points at: files, a redirect, a 404, an endless body and a server that never answers.
  files = await startHttpServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/media/photo%201.png')
      return void res.writeHead(200, { 'content-type': 'image/png' }).end(fixture('image.png'));
    if (url === '/voice.ogg') return void res.writeHead(200, { 'content-type': 'audio/ogg' }).end(fixture('voice.ogg'));
    if (url === '/moved') return void res.writeHead(302, { location: '/media/photo%201.png' }).end();
    if (url === '/to-private') return void res.writeHead(302, { location: 'http://10.0.0.7/x.png' }).end();
    if (url === '/huge')
      return void res
        .writeHead(200, { 'content-type': 'application/octet-stream' })
        .end(Buffer.alloc(MAX_BYTES + 1, 1));
    if (url === '/streamed-huge') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' });
      for (let i = 0; i < 10; i += 1) res.write(Buffer.alloc(1024, 2));
      return void res.end();
    }
    if (url === '/empty') return void res.writeHead(200).end();
    if (url === '/hang') return; // never answers
    res.writeHead(404).end('no such file');
  });
  filesUrl = files.origin;
});

afterAll(async () => {
  await files?.close();
  await gw?.close();
});

const folder = () => path.join(gw.dataDir, 'attachments');
const snapshot = () => ({
  rows: (gw.gateway.store.db.prepare('SELECT count(*) AS n FROM attachments').get() as { n: number }).n,
  files: fs.readdirSync(folder()).sort(),
});

/** The documented multipart request: token and company as fields after the file, as the page's curl sends them. */
async function multipart(
  fields: [string, string][],
  file?: { name: string; type: string; bytes: Buffer },
  headers: Record<string, string> = {},
  urlPath = '/api/p2/attachments/',
): Promise<TestResponse> {
  const form = new FormData();
  if (file !== undefined) form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
  for (const [name, value] of fields) form.append(name, value);
  const res = await fetch(`${gw.baseUrl}${urlPath}`, { method: 'POST', body: form, headers });
  const text = await res.text();
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    text,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

/** A request that must be refused with `status` and leave no row and no file behind. */
async function refused(send: () => Promise<TestResponse>, status: number, code: string): Promise<TestResponse> {
  const before = snapshot();
  const res = await send();
  expectErrorShape(res, status, code);
  expect(snapshot()).toEqual(before);
  return res;
}

describe('pact-im/api-doc content/ru/v2/attachments/upload-attachment.md: multipart file', () => {
  it('takes private_api_token, company_id and metadata as fields of the body and answers the documented attachment', async () => {
    const res = await multipart(
      [
        ['private_api_token', gw.token],
        ['company_id', String(companyId)],
        ['metadata[data][width]', '1024'],
        ['metadata[data][height]', '1280'],
      ],
      { name: '1.png', type: 'image/png', bytes: fixture('image.png') },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.attachment).toEqual({
      id: expect.any(Number),
      message_id: null,
      file_name: '1.png',
      mime_type: 'image/png',
      size: fixture('image.png').length,
      attachment_url: expect.stringMatching(/\/files\/[A-Za-z0-9_-]{43}\/1\.png$/),
      preview_url: expect.stringMatching(/\?disposition=inline$/),
      // The picture's own size wins over the declared one (docs/decisions.md).
      aspect_ratio: 1.3333,
      data: { width: 4, height: 3 },
      push_to_talk: false,
    });
    const served = await fetch(res.body.attachment.attachment_url as string);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(fixture('image.png'));
  });

  it('takes the token from the header too, and the path without the trailing slash', async () => {
    const res = await multipart(
      [
        ['company_id', String(companyId)],
        ['metadata[push_to_talk]', 'false'],
      ],
      { name: 'voice.ogg', type: 'audio/ogg', bytes: fixture('voice.ogg') },
      { 'x-private-api-token': gw.token },
      '/api/p2/attachments',
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.attachment).toMatchObject({ mime_type: 'audio/ogg', push_to_talk: false });
    expect(res.body.attachment).not.toHaveProperty('preview_url');
  });

  it('refuses without leaving a file: no token, a wrong token, no company, another account, no file, both, too large, push_to_talk on a picture', async () => {
    const png = { name: 'a.png', type: 'image/png', bytes: fixture('image.png') };
    const own = (extra: [string, string][] = []): [string, string][] => [
      ['private_api_token', gw.token],
      ['company_id', String(companyId)],
      ...extra,
    ];
    await refused(() => multipart([['company_id', String(companyId)]], png), 401, 'unauthorized');
    await refused(
      () =>
        multipart(
          [
            ['private_api_token', 'gwk_wrong'],
            ['company_id', String(companyId)],
          ],
          png,
        ),
      401,
      'unauthorized',
    );
    expect(
      failingFields(await refused(() => multipart([['private_api_token', gw.token]], png), 422, 'validation_failed')),
    ).toEqual(['company_id']);
    const other = await gw.createAccount('uploads-other');
    await refused(
      () =>
        multipart(
          [
            ['private_api_token', other],
            ['company_id', String(companyId)],
          ],
          png,
        ),
      404,
      'not_found',
    );
    expect(failingFields(await refused(() => multipart(own()), 422, 'validation_failed'))).toEqual(['file']);
    expect(
      failingFields(
        await refused(() => multipart(own([['file_url', `${filesUrl}/voice.ogg`]]), png), 422, 'validation_failed'),
      ),
    ).toEqual(['file_url']);
    await refused(
      () =>
        multipart(own(), { name: 'big.bin', type: 'application/octet-stream', bytes: Buffer.alloc(MAX_BYTES + 1, 3) }),
      413,
      'payload_too_large',
    );
    expect(
      failingFields(
        await refused(() => multipart(own([['metadata[push_to_talk]', 'true']]), png), 422, 'validation_failed'),
      ),
    ).toEqual(['metadata/push_to_talk']);
  });
});

describe('pact-im/api-doc content/ru/v2/attachments/upload-attachment.md: file_url', () => {
  const byUrl = (json: Record<string, unknown>) =>
    gw.request('POST', '/api/p2/attachments', { json: { company_id: companyId, ...json } });

  it('downloads the file (following a redirect) and answers the attachment named after the URL', async () => {
    const res = await byUrl({ file_url: `${filesUrl}/moved` });
    expect(res.status, res.text).toBe(201);
    expect(res.body.attachment).toMatchObject({
      file_name: 'photo 1.png',
      mime_type: 'image/png',
      size: fixture('image.png').length,
      data: { width: 4, height: 3 },
    });
    const voice = await byUrl({ file_url: `${filesUrl}/voice.ogg`, metadata: { push_to_talk: true } });
    expect(voice.body.attachment).toMatchObject({ file_name: 'voice.ogg', mime_type: 'audio/ogg', push_to_talk: true });
  });

  it('refuses without leaving a file: 404, unreachable, private (also behind a redirect), empty, too large, too slow, not http, a JSON file field', async () => {
    const fields = async (json: Record<string, unknown>, status = 422, code = 'validation_failed') =>
      refused(() => byUrl(json), status, code);
    expect((await fields({ file_url: `${filesUrl}/missing` })).body.errors[0].detail).toContain('answered HTTP 404');
    expect((await fields({ file_url: 'http://127.0.0.1:1/x' })).body.errors[0].detail).toContain(
      'could not be reached',
    );
    for (const url of ['http://10.0.0.7/x.png', 'http://[::1]/x', `${filesUrl}/to-private`]) {
      const [entry] = expectErrorShape(await fields({ file_url: url }), 422, 'validation_failed');
      expect(entry!.source).toEqual({ pointer: '/file_url' });
      expect(entry!.detail).toContain('private, loopback, link-local or reserved');
    }
    expect((await fields({ file_url: `${filesUrl}/empty` })).body.errors[0].detail).toContain('empty');
    await fields({ file_url: `${filesUrl}/huge` }, 413, 'payload_too_large');
    await fields({ file_url: `${filesUrl}/streamed-huge` }, 413, 'payload_too_large');
    expect((await fields({ file_url: `${filesUrl}/hang` })).body.errors[0].detail).toContain('within 700 ms');
    expect(failingFields(await fields({ file_url: 'ftp://example.com/a.png' }))).toEqual(['file_url']);
    expect(failingFields(await fields({ file: 'not a file' }))).toEqual(['file']);
    expect(failingFields(await fields({}))).toEqual(['file']);
  });
});
