import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebhookHttpClient } from '../../src/dispatch/http-client.js';
import { SsrfGuard } from '../../src/net/ssrf.js';
import { startHttpServer } from '../helpers/receiver.js';

// The dispatcher's HTTP client on its own: what it keeps of an answer, and that its timeout bounds
// the whole attempt, not only the wait for headers or between chunks.
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function serve(handler: http.RequestListener) {
  const server = await startHttpServer(handler);
  const client = new WebhookHttpClient(new SsrfGuard(['127.0.0.1']));
  closing.push(
    () => server.close(),
    () => client.close(),
  );
  return { client, url: `${server.origin}/hooks?x=1` };
}

const post = (client: WebhookHttpClient, url: string, timeoutMs = 5_000) =>
  client.post({ url, headers: { 'webhook-id': 'evt_1' }, body: '{"a":1}', timeoutMs });

describe('WebhookHttpClient', () => {
  it('posts the body with its headers to the path and query, and answers status, retry-after and body', async () => {
    let seen: { method?: string; url?: string; headers?: http.IncomingHttpHeaders; body?: string } = {};
    const { client, url } = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        seen = { method: req.method, url: req.url, headers: req.headers, body };
        res.writeHead(429, { 'retry-after': '30' });
        res.end('slow down');
      });
    });
    expect(await post(client, url)).toEqual({ statusCode: 429, retryAfter: '30', body: 'slow down', error: null });
    expect(seen).toMatchObject({ method: 'POST', url: '/hooks?x=1', body: '{"a":1}' });
    expect(seen.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'gateway-webhooks/1',
      'webhook-id': 'evt_1',
      'content-length': '7',
    });
  });

  it('keeps the first 4 KiB of a long answer', async () => {
    const { client, url } = await serve((_req, res) => {
      res.writeHead(200);
      res.write('a'.repeat(3000));
      // The rest a moment later, so the answer arrives in more than one chunk.
      setTimeout(() => res.end('b'.repeat(1_000_000)), 20);
    });
    const answer = await post(client, url);
    expect(answer).toMatchObject({ statusCode: 200, error: null });
    expect(answer.body).toBe('a'.repeat(3000) + 'b'.repeat(1096));
    // The client is still usable afterwards.
    expect((await post(client, url)).statusCode).toBe(200);
  });

  it('times out a receiver that never answers', async () => {
    const { client, url } = await serve(() => {});
    const began = performance.now();
    expect(await post(client, url, 300)).toEqual({
      statusCode: null,
      retryAfter: null,
      body: null,
      error: 'timed out waiting for the receiver',
    });
    expect(performance.now() - began).toBeGreaterThanOrEqual(290);
    expect(performance.now() - began).toBeLessThan(2_000);
  });

  it('times out an answer that trickles in, by the whole attempt', async () => {
    const { client, url } = await serve((_req, res) => {
      res.writeHead(200);
      const drip = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(drip));
    });
    const began = performance.now();
    expect((await post(client, url, 400)).error).toBe('timed out waiting for the receiver');
    expect(performance.now() - began).toBeLessThan(2_000);
  });

  it('refuses a private IP literal that is not allow-listed, and a URL that is not http', async () => {
    const client = new WebhookHttpClient(new SsrfGuard([]));
    closing.push(() => client.close());
    expect((await post(client, 'http://10.1.2.3/hooks')).error).toMatch(/refused to connect to 10\.1\.2\.3/);
    expect((await post(client, 'ftp://example.com/hooks')).error).toMatch(/http or https/);
  });
});
