/**
 * Sending a fuzzed request as it is: the path, query and body as raw text and bytes over a fresh
 * connection, so that malformed escapes and bodies reach the gateway unchanged, with a deadline
 * that turns a hung request into a failure.
 */
import http from 'node:http';
import type { FuzzWorld } from './fuzz-gateway.js';

/** One request as the fuzz suite sends it: the path and query as raw text, the body as raw bytes. */
export interface FuzzRequest {
  method: string;
  /** Path and query, sent exactly as given (may hold malformed escapes). */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** The answer as received: status, headers, text, and the text parsed as JSON when it is. */
export interface FuzzAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: unknown;
}

/** A request unanswered this long counts as hung. */
const HANG_MS = 5_000;

/**
 * Sends the request over a fresh connection. A connection dropped before a complete answer, or no
 * answer within HANG_MS, fails the property (a refused request must still be answered).
 */
export function send(world: FuzzWorld, request: FuzzRequest): Promise<FuzzAnswer> {
  return new Promise((resolve, reject) => {
    const headers = {
      ...request.headers,
      ...(request.body === undefined ? {} : { 'content-length': String(request.body.length) }),
    };
    const req = http.request({
      host: '127.0.0.1',
      port: world.gw.gateway.port,
      method: request.method,
      path: request.target,
      headers,
      agent: false,
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${HANG_MS} ms to ${describe(request)}`));
    }, HANG_MS);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`the answer to ${describe(request)} was cut: ${error.message}`));
      });
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`the connection of ${describe(request)} was dropped: ${error.message}`));
    });
    req.end(request.body);
  });
}

/** The request in one line for a failure message: its target and body cut at 300 characters. */
export function describe(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? ''
      : ` body(${request.body.length})=${JSON.stringify(request.body.subarray(0, 300).toString('utf8'))}`;
  return `${request.method} ${request.target.slice(0, 300)} ${JSON.stringify(request.headers)}${body}`;
}
