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

const MAX_BYTES = 4096;
const fixture = (name: string): Buffer => fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', name));

let gw: TestGateway;
let companyId: number;
let folder: string;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ATTACHMENT_MAX_BYTES: String(MAX_BYTES) });
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Uploads' } })).body.data.external_id;
  folder = path.join(gw.dataDir, 'attachments');
});
afterAll(() => gw.close());

interface Upload {
  bytes: Buffer;
  name?: string;
  type?: string;
  field?: string;
  company?: number | string;
  token?: string | null;
  query?: string;
}

/** POSTs one file as multipart/form-data, built by fetch's FormData. */
async function upload({
  bytes,
  name = 'upload.bin',
  type = 'application/octet-stream',
  field = 'file',
  company = companyId,
  token,
  query = '',
}: Upload): Promise<TestResponse> {
  const form = new FormData();
  form.append('note', 'ignored');
  form.append(field, new Blob([bytes], { type }), name);
  const headers: Record<string, string> = {};
  const sendToken = token === undefined ? gw.token : token;
  if (sendToken !== null) headers['x-private-api-token'] = sendToken;
  const res = await fetch(`${gw.baseUrl}/api/p2/companies/${company}/attachments${query}`, {
    method: 'POST',
    body: form,
    headers,
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    text,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

/** A multipart body written by hand, for shapes FormData cannot make. */
function rawMultipart(
  parts: { field: string; name?: string; type?: string; content: Buffer | string }[],
  boundary = 'XyZ-boundary',
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.field}"${part.name === undefined ? '' : `; filename="${part.name}"`}`;
    const type = part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`;
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`),
      Buffer.from(part.content),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

async function postRaw(
  body: Buffer,
  contentType = 'multipart/form-data; boundary=XyZ-boundary',
): Promise<TestResponse> {
  const res = await fetch(`${gw.baseUrl}/api/p2/companies/${companyId}/attachments`, {
    method: 'POST',
    body,
    headers: { 'x-private-api-token': gw.token, 'content-type': contentType },
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    text,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

const count = (): number =>
  (gw.gateway.store.db.prepare('SELECT count(*) AS n FROM attachments').get() as { n: number }).n;
const filesOnDisk = (): string[] => fs.readdirSync(folder).sort();

/** Runs a request that must be refused and proves it left no row and no file behind. */
async function refusedLeavingNothing(send: () => Promise<TestResponse>): Promise<TestResponse> {
  const [rows, files] = [count(), filesOnDisk()];
  const res = await send();
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(count()).toBe(rows);
  expect(filesOnDisk()).toEqual(files);
  return res;
}

const keyOf = (url: string): string => new URL(url).pathname.split('/')[2]!;

describe('POST /api/p2/companies/<id>/attachments', () => {
  it('stores an image and answers every Attachment field with its dimensions', async () => {
    const res = await upload({ bytes: fixture('image.png'), name: 'image.png', type: 'image/png' });
    expect(res.status).toBe(201);
    const url = res.body.attachment.attachment_url as string;
    expect(url).toMatch(new RegExp(`^${gw.baseUrl}/files/[A-Za-z0-9_-]{43}/image\\.png$`));
    expect(res.body).toEqual({
      attachment: {
        id: expect.any(Number),
        message_id: null,
        file_name: 'image.png',
        mime_type: 'image/png',
        size: fixture('image.png').length,
        attachment_url: url,
        preview_url: `${url}?disposition=inline`,
        aspect_ratio: 1.3333,
        data: { width: 4, height: 3 },
        push_to_talk: false,
      },
    });
    expect(Object.keys(res.body.attachment)).toEqual([
      'id',
      'message_id',
      'file_name',
      'mime_type',
      'size',
      'attachment_url',
      'preview_url',
      'aspect_ratio',
      'data',
      'push_to_talk',
    ]);
    expect(filesOnDisk()).toContain(keyOf(url));
  });

  it('reads JPEG dimensions, turned by the EXIF orientation', async () => {
    const photo = await upload({ bytes: fixture('photo.jpg'), name: 'photo.jpg', type: 'image/jpeg' });
    expect(photo.status).toBe(201);
    expect(photo.body.attachment).toMatchObject({
      mime_type: 'image/jpeg',
      data: { width: 16, height: 9 },
      aspect_ratio: 1.7778,
    });
    // 4x2 pixels stored with orientation 6 (a quarter turn): shown 2 wide, 4 high
    const rotated = await upload({ bytes: fixture('rotated.jpg'), name: 'rotated.jpg', type: 'image/jpeg' });
    expect(rotated.body.attachment).toMatchObject({ data: { width: 2, height: 4 }, aspect_ratio: 0.5 });
  });

  it('marks an Ogg/Opus voice note push_to_talk and gives audio no preview_url', async () => {
    const res = await upload({ bytes: fixture('voice.ogg'), name: 'voice.ogg', type: 'audio/ogg' });
    expect(res.status).toBe(201);
    const url = res.body.attachment.attachment_url as string;
    expect(res.body).toEqual({
      attachment: {
        id: expect.any(Number),
        message_id: null,
        file_name: 'voice.ogg',
        mime_type: 'audio/ogg',
        size: fixture('voice.ogg').length,
        attachment_url: url,
        aspect_ratio: null,
        data: {},
        push_to_talk: true,
      },
    });
    expect(res.body.attachment).not.toHaveProperty('preview_url');
  });

  it.each([
    ['tone.mp3', 'audio/mpeg'],
    ['tone.wav', 'audio/wav'],
  ])('stores other audio (%s) without push_to_talk and without preview_url', async (name, mime) => {
    const res = await upload({ bytes: fixture(name), name, type: mime });
    expect(res.status).toBe(201);
    expect(res.body.attachment).toMatchObject({ mime_type: mime, push_to_talk: false, aspect_ratio: null, data: {} });
    expect(res.body.attachment).not.toHaveProperty('preview_url');
  });

  it('stores a document with a preview_url, no aspect ratio and empty data', async () => {
    const res = await upload({ bytes: fixture('doc.pdf'), name: 'doc.pdf', type: 'application/pdf' });
    expect(res.status).toBe(201);
    const url = res.body.attachment.attachment_url as string;
    expect(res.body.attachment).toEqual({
      id: expect.any(Number),
      message_id: null,
      file_name: 'doc.pdf',
      mime_type: 'application/pdf',
      size: fixture('doc.pdf').length,
      attachment_url: url,
      preview_url: `${url}?disposition=inline`,
      aspect_ratio: null,
      data: {},
      push_to_talk: false,
    });
  });

  it('detects the type from the content when the client lies about it', async () => {
    const mp3AsVoice = await upload({ bytes: fixture('tone.mp3'), name: 'voice.ogg', type: 'audio/ogg' });
    expect(mp3AsVoice.body.attachment).toMatchObject({
      file_name: 'voice.ogg',
      mime_type: 'audio/mpeg',
      push_to_talk: false,
    });
    const voiceAsBinary = await upload({
      bytes: fixture('voice.ogg'),
      name: 'recording',
      type: 'application/octet-stream',
    });
    expect(voiceAsBinary.body.attachment).toMatchObject({ mime_type: 'audio/ogg', push_to_talk: true });
    const pngAsPdf = await upload({ bytes: fixture('image.png'), name: 'report.pdf', type: 'application/pdf' });
    expect(pngAsPdf.body.attachment).toMatchObject({ mime_type: 'image/png', data: { width: 4, height: 3 } });
    const htmlAsText = await upload({
      bytes: Buffer.from('<script>alert(1)</script>'),
      name: 'page.html',
      type: 'text/html',
    });
    expect(htmlAsText.body.attachment).toMatchObject({ mime_type: 'text/plain', aspect_ratio: null, data: {} });
    const csv = await upload({ bytes: Buffer.from('a,b\n1,2\n'), name: 'table.csv', type: 'text/csv' });
    expect(csv.body.attachment.mime_type).toBe('text/csv');
    const junkAsPng = await upload({
      bytes: Buffer.from([0, 1, 2, 3, 0, 255, 254]),
      name: 'fake.png',
      type: 'image/png',
    });
    expect(junkAsPng.body.attachment).toMatchObject({
      mime_type: 'application/octet-stream',
      aspect_ratio: null,
      data: {},
    });
    expect(junkAsPng.body.attachment).toHaveProperty('preview_url');

    const served = await fetch(pngAsPdf.body.attachment.attachment_url);
    expect(served.headers.get('content-type')).toBe('image/png');
  });

  it('keeps only the base name of the client file name', async () => {
    const res = await postRaw(
      rawMultipart([{ field: 'file', name: '../../etc/evil.png', type: 'image/png', content: fixture('image.png') }]),
    );
    expect(res.status).toBe(201);
    expect(res.body.attachment.file_name).toBe('evil.png');
    const nameless = await postRaw(rawMultipart([{ field: 'file', type: 'application/octet-stream', content: 'hi' }]));
    expect(nameless.status).toBe(201);
    expect(nameless.body.attachment.file_name).toBe('file');
  });

  it('accepts the token in the query', async () => {
    const res = await upload({
      bytes: fixture('image.png'),
      token: null,
      query: `?private_api_token=${encodeURIComponent(gw.token)}`,
    });
    expect(res.status).toBe(201);
  });

  it('answers 401 without a token, and a token in a multipart field is not read', async () => {
    const missing = await refusedLeavingNothing(() => upload({ bytes: fixture('image.png'), token: null }));
    expectErrorShape(missing, 401, 'unauthorized');
    const wrong = await refusedLeavingNothing(() => upload({ bytes: fixture('image.png'), token: 'gwk_wrong-token' }));
    expectErrorShape(wrong, 401, 'unauthorized');
    const inBody = await refusedLeavingNothing(async () => {
      const form = new FormData();
      form.append('private_api_token', gw.token);
      form.append('file', new Blob([fixture('image.png')]), 'a.png');
      const res = await fetch(`${gw.baseUrl}/api/p2/companies/${companyId}/attachments`, {
        method: 'POST',
        body: form,
      });
      return { status: res.status, headers: {}, text: '', body: await res.json() };
    });
    expectErrorShape(inBody, 401, 'unauthorized');
  });

  it("answers 404 for another account's company, exactly like a missing one, storing nothing", async () => {
    const other = await gw.createAccount('intruder');
    const foreign = await refusedLeavingNothing(() => upload({ bytes: fixture('image.png'), token: other }));
    const missing = await refusedLeavingNothing(() => upload({ bytes: fixture('image.png'), company: 999999 }));
    expectErrorShape(foreign, 404, 'not_found');
    expectErrorShape(missing, 404, 'not_found');
    expect(foreign.body.errors[0].detail.replace(String(companyId), 'N')).toBe(
      missing.body.errors[0].detail.replace('999999', 'N'),
    );
    expectErrorShape(
      await refusedLeavingNothing(() => upload({ bytes: fixture('image.png'), company: 'abc' })),
      404,
      'not_found',
    );
  });
});

describe('size limit and bad bodies', () => {
  it('accepts a file of exactly the limit', async () => {
    const res = await upload({ bytes: Buffer.alloc(MAX_BYTES, 'a'), name: 'limit.txt', type: 'text/plain' });
    expect(res.status).toBe(201);
    expect(res.body.attachment).toMatchObject({ size: MAX_BYTES, mime_type: 'text/plain' });
  });

  it('answers 413 payload_too_large above the limit, leaving no row and no file', async () => {
    const res = await refusedLeavingNothing(() =>
      upload({ bytes: Buffer.alloc(MAX_BYTES + 1, 'a'), name: 'big.txt', type: 'text/plain' }),
    );
    expect(expectErrorShape(res, 413, 'payload_too_large')[0]!.detail).toContain(String(MAX_BYTES));
    const muchLarger = await refusedLeavingNothing(() =>
      upload({ bytes: Buffer.alloc(MAX_BYTES * 20, 1), name: 'huge.bin' }),
    );
    expectErrorShape(muchLarger, 413, 'payload_too_large');
    expect(filesOnDisk().some((f) => f.endsWith('.part'))).toBe(false);
  });

  it('answers 422 on file when the file part is missing, empty or doubled', async () => {
    const noFile = await refusedLeavingNothing(() => postRaw(rawMultipart([{ field: 'text', content: 'hello' }])));
    expect(failingFields(noFile)).toEqual(['file']);
    const wrongField = await refusedLeavingNothing(() => upload({ bytes: fixture('image.png'), field: 'document' }));
    expect(failingFields(wrongField)).toEqual(['file']);
    const empty = await refusedLeavingNothing(() => upload({ bytes: Buffer.alloc(0), name: 'empty.txt' }));
    expect(failingFields(empty)).toEqual(['file']);
    expect(empty.body.errors[0].detail).toMatch(/empty/);
    const two = await refusedLeavingNothing(() =>
      postRaw(
        rawMultipart([
          { field: 'file', name: 'a.png', type: 'image/png', content: fixture('image.png') },
          { field: 'file', name: 'b.png', type: 'image/png', content: fixture('image.png') },
        ]),
      ),
    );
    expect(failingFields(two)).toEqual(['file']);
  });

  it('answers 415 for a body that is not multipart and 400 for a broken one', async () => {
    const json = await refusedLeavingNothing(() =>
      gw.request('POST', `/api/p2/companies/${companyId}/attachments`, { json: { file: 'x' } }),
    );
    expectErrorShape(json, 415, 'unsupported_media_type');
    const none = await refusedLeavingNothing(() => gw.request('POST', `/api/p2/companies/${companyId}/attachments`));
    expectErrorShape(none, 415, 'unsupported_media_type');
    const noBoundary = await refusedLeavingNothing(() => postRaw(Buffer.from('whatever'), 'multipart/form-data'));
    expectErrorShape(noBoundary, 400, 'bad_request');
    const truncated = await refusedLeavingNothing(() =>
      postRaw(
        Buffer.from('--XyZ-boundary\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc'),
      ),
    );
    expectErrorShape(truncated, 400, 'bad_request');
  });
});

describe('GET /files/<storage_key>/<file_name>', () => {
  let image: { attachment_url: string; preview_url: string; file_name: string };
  let voice: { attachment_url: string };

  beforeAll(async () => {
    image = (await upload({ bytes: fixture('photo.jpg'), name: 'Фото отпуска "1".jpg', type: 'image/jpeg' })).body
      .attachment;
    voice = (await upload({ bytes: fixture('voice.ogg'), name: 'voice.ogg', type: 'audio/ogg' })).body.attachment;
  });

  it('keeps the file name as the browser gave it', () => {
    expect(image.file_name).toBe('Фото отпуска "1".jpg');
    expect(image.attachment_url.endsWith(`/${encodeURIComponent(image.file_name)}`)).toBe(true);
  });

  it('serves the uploaded bytes without a token, as a download with safe headers', async () => {
    const res = await fetch(image.attachment_url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(fixture('photo.jpg'))).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('content-length')).toBe(String(fixture('photo.jpg').length));
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="(?:[^"\\]|\\.)*\.jpg"; filename\*=UTF-8''/,
    );
    expect(res.headers.get('content-disposition')).toContain(encodeURIComponent('Фото'));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');

    const ogg = await fetch(voice.attachment_url);
    expect(Buffer.from(await ogg.arrayBuffer()).equals(fixture('voice.ogg'))).toBe(true);
    expect(ogg.headers.get('content-type')).toBe('audio/ogg');
  });

  it('serves the preview inline for a type a browser shows safely, never for others', async () => {
    const preview = await fetch(image.preview_url);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-disposition')).toMatch(/^inline; /);
    expect(Buffer.from(await preview.arrayBuffer()).equals(fixture('photo.jpg'))).toBe(true);

    const json = await upload({ bytes: Buffer.from('{"a":1}'), name: 'data.json', type: 'application/json' });
    expect(json.body.attachment.mime_type).toBe('application/json');
    const jsonPreview = await fetch(json.body.attachment.preview_url);
    expect(jsonPreview.headers.get('content-disposition')).toMatch(/^attachment; /);
  });

  it('answers HEAD with the headers only', async () => {
    const res = await fetch(image.attachment_url, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(fixture('photo.jpg').length));
    expect(res.headers.get('content-type')).toBe('image/jpeg');
  });

  it('answers 404 in the error shape for an unknown key or another name', async () => {
    const key = keyOf(image.attachment_url);
    const unknown = await gw.request('GET', `/files/${'A'.repeat(43)}/x.jpg`, { token: null });
    expect(expectErrorShape(unknown, 404, 'not_found')[0]!.detail).toBe('There is no file at this address.');
    expectErrorShape(await gw.request('GET', `/files/${key}/other.jpg`, { token: null }), 404, 'not_found');
    expectErrorShape(await gw.request('GET', `/files/${key.slice(0, 42)}/x.jpg`, { token: null }), 404, 'not_found');
    // even with a valid API token the URL must be right
    expectErrorShape(await gw.request('GET', `/files/${'B'.repeat(43)}/x.jpg`), 404, 'not_found');
  });

  it('never serves anything outside the attachments folder', async () => {
    const key = keyOf(image.attachment_url);
    // gateway.db lives in the data dir, one level above the attachments folder
    const attempts = [
      '/files/../gateway.db',
      '/files/..%2Fgateway.db/gateway.db',
      '/files/..%2F..%2Fgateway.db/x',
      '/files/%2e%2e/gateway.db',
      '/files/%2e%2e%2fgateway.db/gateway.db',
      '/files/gateway.db/gateway.db',
      `/files/${key}%2F..%2F..%2Fgateway.db/x`,
      `/files/${key}/..%2F..%2Fgateway.db`,
      `/files/..%5C..%5Cgateway.db/x`,
      `/files/${encodeURIComponent('/etc/passwd')}/passwd`,
      '/files/%00/x',
    ];
    for (const attempt of attempts) {
      const res = await gw.request('GET', attempt, { token: null });
      expect(res.status, attempt).toBe(404);
      expectErrorShape(res, 404, 'not_found');
      expect(res.text).not.toContain('SQLite format');
    }
  });
});

describe('ownership in the store', () => {
  it('finds an attachment only through its own company', async () => {
    const res = await upload({ bytes: fixture('doc.pdf'), name: 'mine.pdf', type: 'application/pdf' });
    const id = res.body.attachment.id as number;
    const other = (await gw.request('POST', '/p1/companies', { json: { name: 'Sibling' } })).body.data
      .external_id as number;
    const attachments = gw.gateway.store.attachments;
    expect(attachments.findForCompany(companyId, id)?.file_name).toBe('mine.pdf');
    expect(attachments.findForCompany(other, id)).toBeUndefined();
    expect(attachments.findByStorageKey(keyOf(res.body.attachment.attachment_url))?.id).toBe(id);
    expect(attachments.findByStorageKey('nope')).toBeUndefined();
    expect(attachments.forMessages([])).toEqual([]);
    expect(attachments.forMessages([123456])).toEqual([]);
  });

  it('stores each file under its own random key', async () => {
    const a = await upload({ bytes: fixture('image.png'), name: 'same.png' });
    const b = await upload({ bytes: fixture('image.png'), name: 'same.png' });
    expect(keyOf(a.body.attachment.attachment_url)).not.toBe(keyOf(b.body.attachment.attachment_url));
    expect(a.body.attachment.id).not.toBe(b.body.attachment.id);
  });
});
