/** Reading a request's body in the front, within a limit. */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { PayloadTooLarge } from '../errors/errors.js';

/**
 * The largest body, of a declared length, that the front holds whole before sending it on; a larger
 * one, or one sent chunked, is streamed.
 */
export const HELD_BODY_BYTES = 64 * 1024;

/** Whether the request has a body to send on (a length above 0, or chunks). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The body to send on to a shard: null for none; a small one (a callback, an API call) read whole,
 * so that it goes out in one write with its head and can be sent again when a kept connection turns
 * out closed; anything else as the stream it is, never held.
 */
export async function bodyToSend(req: IncomingMessage): Promise<Buffer | Readable | null> {
  if (!hasBody(req)) return null;
  const declared = Number(req.headers['content-length']);
  if (req.headers['transfer-encoding'] !== undefined || !(declared <= HELD_BODY_BYTES)) return req;
  return readWhole(req);
}

/** Reads a request's whole body, refusing one over `limit` bytes (413 in the contract's shape). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (!hasBody(req)) return Buffer.alloc(0);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    throw new PayloadTooLarge('The request body is larger than the limit.');
  return readWhole(req, limit);
}

/** The body's chunks joined, with plain listeners (an async iterator costs several promises per chunk). */
function readWhole(req: IncomingMessage, limit = Infinity): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(new PayloadTooLarge('The request body is larger than the limit.'));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('error', reject);
    req.once('close', () => {
      if (!req.complete) reject(new Error('the client closed the connection before its body ended'));
    });
  });
}
