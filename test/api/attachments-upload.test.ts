// HTTP tests of uploading an attachment to a company (contract section 2 "Attachment", section 5
// Authentication; docs/design.md section 9 for the path) against a real gateway on a temp SQLite file:
// every field of the answer for images, voice notes, other audio and documents, the type read from the
// content rather than the client's word, the base name kept, the token in the header or the query, and
// the 401 and 404 that leave no row and no file behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, type TestGateway } from '../helpers/gateway.js';
import { attachmentHelpers, fixture, keyOf, rawMultipart, startAttachmentsGateway } from './attachments-fixtures.js';

let gw: TestGateway;
let companyId: number;
let close: () => Promise<void>;
const { upload, postRaw, filesOnDisk, refusedLeavingNothing } = attachmentHelpers(
  () => gw,
  () => companyId,
);

beforeAll(async () => {
  ({ gw, companyId, close } = await startAttachmentsGateway());
});
afterAll(() => close?.());

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
