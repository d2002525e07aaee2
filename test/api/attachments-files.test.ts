// Black-box HTTP tests of serving uploaded files at GET /files/<storage_key>/<file_name> (contract
// section 2 "Attachment": attachment_url and preview_url; docs/design.md section 9: served by
// unguessable URLs) against a real gateway: the uploaded bytes without a token, as a download with safe
// headers, the preview inline only for types a browser shows safely, HEAD, and the 404 for a wrong key,
// a wrong name or any path out of the attachments folder. It asserts through HTTP alone, so it runs
// against one daemon and, behind the front, against a 3-shard cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, type TestGateway } from '../helpers/gateway.js';
import { attachmentHelpers, fixture, keyOf, startAttachmentsGateway } from './attachments-fixtures.js';

let gw: TestGateway;
let companyId: number;
let close: () => Promise<void>;
const { upload } = attachmentHelpers(
  () => gw,
  () => companyId,
);

beforeAll(async () => {
  ({ gw, companyId, close } = await startAttachmentsGateway());
});
afterAll(() => close?.());

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
