// HTTP tests of what an upload leaves in the store and the data dir (contract section 2 "Attachment",
// section 7 errors; docs/design.md section 9: files live under the data dir) against a real gateway on
// a temp SQLite file: a file of exactly the size limit is kept, one above it and every missing, empty,
// doubled, non-multipart or broken body is refused leaving no row and no file, and each stored file
// gets its own random key and is found only through its own company.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, failingFields, type TestGateway } from '../helpers/gateway.js';
import {
  attachmentHelpers,
  fixture,
  keyOf,
  MAX_BYTES,
  rawMultipart,
  startAttachmentsGateway,
} from './attachments-fixtures.js';

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
