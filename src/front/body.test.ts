// What the front holds of a request's body before sending it on (bodyToSend), over a real HTTP
// server and client: a small body of a declared length whole, a large or chunked one as its
// stream, none as null, and a client that leaves mid-body as an error rather than a hang.
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyToSend, HELD_BODY_BYTES } from './body.js';

const servers: http.Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server that answers what bodyToSend gave for each request: its kind, and its bytes once read. */
async function describeBodies(): Promise<{ url: string; seen: Promise<string>[] }> {
  const seen: Promise<string>[] = [];
  const server = http.createServer((req: IncomingMessage, res) => {
    const outcome = bodyToSend(req).then(async (body) => {
      if (body === null) return 'none';
      if (Buffer.isBuffer(body)) return `held ${body.length}`;
      let size = 0;
      for await (const chunk of body as AsyncIterable<Buffer>) size += chunk.length;
      return `streamed ${size}`;
    });
    seen.push(outcome.catch((error: Error) => `failed: ${error.message}`));
    void outcome.then(
      (text) => res.end(text),
      () => res.destroy(),
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function post(url: string, body: Buffer | Readable | null): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    body: body === null ? null : Buffer.isBuffer(body) ? body : (Readable.toWeb(body) as ReadableStream),
    ...(body instanceof Readable ? { duplex: 'half' } : {}),
  });
  return response.text();
}

describe('bodyToSend', () => {
  it('holds a body of a declared length up to the limit, streams a larger or chunked one, and has none for none', async () => {
    const { url } = await describeBodies();
    expect(await post(url, null)).toBe('none');
    expect(await post(url, Buffer.alloc(300, 'a'))).toBe('held 300');
    expect(await post(url, Buffer.alloc(HELD_BODY_BYTES, 'a'))).toBe(`held ${HELD_BODY_BYTES}`);
    expect(await post(url, Buffer.alloc(HELD_BODY_BYTES + 1, 'a'))).toBe(`streamed ${HELD_BODY_BYTES + 1}`);
    expect(await post(url, Readable.from([Buffer.from('chunk one'), Buffer.from('chunk two')]))).toBe('streamed 18');
  });

  it('fails, rather than waits, when the client leaves before its declared body ended', async () => {
    const { url, seen } = await describeBodies();
    const { port } = new URL(url);
    const request = http.request({ host: '127.0.0.1', port, method: 'POST', headers: { 'content-length': '100' } });
    request.on('error', () => {});
    request.write('only part of it', () => request.destroy());
    await expect.poll(() => seen.length).toBe(1);
    // Node's own 'aborted' error, or the close that comes without it.
    expect(await seen[0]).toMatch(/^failed: (aborted|the client closed the connection before its body ended)$/);
  });
});
