/**
 * `POST /api/p2/attachments` through the front: `company_id` is a field of the body, which may be a
 * multipart upload of up to GATEWAY_ATTACHMENT_MAX_BYTES. The front reads the parts with busboy
 * as the bytes come, holding only the bytes read so far; once the `company_id` field is read it
 * forwards the held bytes and streams the rest of the request straight from the client. The bytes
 * forwarded are the client's own, never busboy's reading of them.
 *
 * When `company_id` comes after the file part, the file is held until it comes (at most
 * `holdLimit` bytes, past which the answer is 413 as the core's own would be). A body that ends
 * without one, or that is not well-formed multipart, goes to any live shard, which refuses it as a
 * single daemon would.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { PayloadTooLarge } from '../errors/errors.js';
import { companyIdOf, companyOfBody } from './company-input.js';
import { readBody } from './body.js';

export interface Upload {
  /** The company the body names: undefined when it names none, null when the value is no id. */
  company: number | null | undefined;
  /** What to send on: the whole body when it was held, else the held bytes followed by the rest of the request. */
  body: Buffer | Readable;
}

export async function readUpload(req: IncomingMessage, bodyLimit: number, holdLimit: number): Promise<Upload> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    const body = await readBody(req, bodyLimit);
    return { company: companyOfBody(body, type), body };
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers });
  } catch {
    // No boundary: not multipart the shard can read; it answers that.
    return { company: undefined, body: await readBody(req, holdLimit) };
  }
  return new Promise<Upload>((resolve, reject) => {
    const held: Buffer[] = [];
    let heldBytes = 0;
    let settled = false;
    const settle = (company: number | null | undefined) => {
      if (settled) return;
      settled = true;
      req.pause();
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      parser.removeAllListeners();
      parser.on('error', () => {});
      resolve({
        company,
        body: req.readableEnded ? Buffer.concat(held) : Readable.from(heldThenRest(held, req), { objectMode: false }),
      });
    };
    const onData = (chunk: Buffer) => {
      held.push(chunk);
      heldBytes += chunk.length;
      if (heldBytes > holdLimit) {
        settled = true;
        req.off('data', onData);
        reject(new PayloadTooLarge('The request body is larger than the limit.'));
        return;
      }
      parser.write(chunk);
    };
    const onEnd = () => parser.end();
    const onError = (error: Error) => {
      if (!settled) {
        settled = true;
        reject(error);
      }
    };
    parser.on('field', (name, value) => {
      if (name === 'company_id') settle(companyIdOf(value));
    });
    parser.on('file', (_name, file) => file.resume());
    parser.on('close', () => settle(undefined));
    parser.on('error', () => settle(undefined));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

async function* heldThenRest(held: readonly Buffer[], rest: IncomingMessage): AsyncGenerator<Buffer> {
  yield* held;
  for await (const chunk of rest as AsyncIterable<Buffer>) yield chunk;
}
