// What the test/api/attachments-*.test.ts files share (contract section 2 "Attachment"; docs/design.md
// section 9 for the upload path and the files under the data dir): the gateway each file starts, with
// its size limit and the company it uploads to, the test files, the requests that upload one, and the
// checks that read back the attachment rows and the files of that gateway.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { startTestGateway, type TestGateway, type TestResponse } from '../helpers/gateway.js';

/** GATEWAY_ATTACHMENT_MAX_BYTES of every gateway these files start. */
export const MAX_BYTES = 4096;

/** What a test file's beforeAll starts: a gateway, the company it uploads to, and `close`, its afterAll. */
export interface AttachmentsGateway {
  gw: TestGateway;
  companyId: number;
  close: () => Promise<void>;
}

/** A file's beforeAll: a gateway limiting attachments to MAX_BYTES, and a company. */
export async function startAttachmentsGateway(): Promise<AttachmentsGateway> {
  const gw = await startTestGateway({ GATEWAY_ATTACHMENT_MAX_BYTES: String(MAX_BYTES) });
  const companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Uploads' } })).body.data.external_id;
  return { gw, companyId, close: () => gw.close() };
}

export const fixture = (name: string): Buffer =>
  fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', name));

/** The storage key of an attachment_url or preview_url: /files/<storage_key>/<file_name>. */
export const keyOf = (url: string): string => new URL(url).pathname.split('/')[2]!;

/** A multipart body written by hand, for shapes FormData cannot make. */
export function rawMultipart(
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

export interface Upload {
  bytes: Buffer;
  name?: string;
  type?: string;
  field?: string;
  company?: number | string;
  token?: string | null;
  query?: string;
}

async function answer(res: Response): Promise<TestResponse> {
  const text = await res.text();
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    text,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

/**
 * The helpers that call a gateway: `gateway` answers the one the test file's beforeAll started and
 * `company` the company it uploads to, so a file takes them once, at its top.
 */
export function attachmentHelpers(gateway: () => TestGateway, company: () => number) {
  /** POSTs one file as multipart/form-data, built by fetch's FormData. */
  async function upload({
    bytes,
    name = 'upload.bin',
    type = 'application/octet-stream',
    field = 'file',
    company: to = company(),
    token,
    query = '',
  }: Upload): Promise<TestResponse> {
    const gw = gateway();
    const form = new FormData();
    form.append('note', 'ignored');
    form.append(field, new Blob([bytes], { type }), name);
    const headers: Record<string, string> = {};
    const sendToken = token === undefined ? gw.token : token;
    if (sendToken !== null) headers['x-private-api-token'] = sendToken;
    const res = await fetch(`${gw.baseUrl}/api/p2/companies/${to}/attachments${query}`, {
      method: 'POST',
      body: form,
      headers,
    });
    return answer(res);
  }

  async function postRaw(
    body: Buffer,
    contentType = 'multipart/form-data; boundary=XyZ-boundary',
  ): Promise<TestResponse> {
    const gw = gateway();
    const res = await fetch(`${gw.baseUrl}/api/p2/companies/${company()}/attachments`, {
      method: 'POST',
      body,
      headers: { 'x-private-api-token': gw.token, 'content-type': contentType },
    });
    return answer(res);
  }

  /** The attachment rows in the store (a single daemon's: a cluster has no single store). */
  const count = (): number =>
    (gateway().gateway.store.db.prepare('SELECT count(*) AS n FROM attachments').get() as { n: number }).n;
  /** The files in the data dir's attachments folder (a single daemon's). */
  const filesOnDisk = (): string[] => fs.readdirSync(path.join(gateway().dataDir, 'attachments')).sort();

  /** Runs a request that must be refused and proves it left no row and no file behind. */
  async function refusedLeavingNothing(send: () => Promise<TestResponse>): Promise<TestResponse> {
    const [rows, files] = [count(), filesOnDisk()];
    const res = await send();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(count()).toBe(rows);
    expect(filesOnDisk()).toEqual(files);
    return res;
  }

  return { upload, postRaw, filesOnDisk, refusedLeavingNothing };
}
