/** Reading a request's body in the front, within a limit. */
import type { IncomingMessage } from 'node:http';
import { PayloadTooLarge } from '../errors/errors.js';

/** Whether the request has a body to send on (a length above 0, or chunks). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Reads a request's whole body, refusing one over `limit` bytes (413 in the contract's shape). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (!hasBody(req)) return Buffer.alloc(0);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    throw new PayloadTooLarge('The request body is larger than the limit.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new PayloadTooLarge('The request body is larger than the limit.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
