/**
 * The headers between a client and a shard: what the front passes on each way. A shard gets the
 * client's headers less the hop-by-hop ones, plus X-Forwarded-For (the connection's address appended
 * to any list the client's proxies sent), X-Forwarded-Proto and X-Forwarded-Host; a client gets the
 * shard's answer's headers less the front's own connection's.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

/** Request headers that belong to one connection, not to the request (RFC 9110 section 7.6.1), and Expect, which the front answers itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

function clientAddress(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}

/** The headers a shard gets: the client's, less the hop-by-hop ones, plus the X-Forwarded-* ones. */
export function upstreamHeaders(
  req: IncomingMessage,
  body: Buffer | Readable | null,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  const forwarded = req.headers['x-forwarded-for'];
  const address = clientAddress(req);
  headers['x-forwarded-for'] =
    forwarded === undefined ? address : `${Array.isArray(forwarded) ? forwarded.join(', ') : forwarded}, ${address}`;
  // A load balancer in front of the front says which protocol the client used; else the front's own.
  headers['x-forwarded-proto'] ??= (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
  if (req.headers.host !== undefined) headers['x-forwarded-host'] ??= req.headers.host;
  if (Buffer.isBuffer(body)) {
    // Held whole: its exact length, whether the client sent it chunked or not.
    headers['content-length'] = String(body.length);
  } else if (body === null) {
    delete headers['content-length'];
  }
  return headers;
}

/** Response headers the front does not pass on: its own connection's. */
const RESPONSE_HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'trailer',
  'upgrade',
]);

export function downstreamHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !RESPONSE_HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}
