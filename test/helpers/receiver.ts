// The tests' webhook receiver (startReceiver) and the loopback HTTP server under it (startHttpServer),
// which the few tests that need an answer no receiver gives (a body that trickles in, files to fetch)
// use with a handler of their own.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface HttpServer {
  /** `http://127.0.0.1:<port>`, without a path. */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** An HTTP server on a free loopback port; close() cuts the connections still open. */
export async function startHttpServer(handler: http.RequestListener): Promise<HttpServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ReceivedWebhook {
  id: string;
  body: unknown;
  /** The request body as it arrived. */
  raw: string;
  headers: http.IncomingHttpHeaders;
  /** Indexes of the secrets that verified the delivery with the standardwebhooks package. */
  verifiedBy: number[];
}

/** What the receiver answers the n-th delivery (from 1): a status (after `delayMs`, if given), or never ('hang'). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A webhook receiver that verifies every delivery with the standardwebhooks package. */
export async function startReceiver(secrets: () => string[], answer: (n: number) => Answer = () => ({ status: 200 })) {
  const received: ReceivedWebhook[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = await startHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers = req.headers as Record<string, string>;
      const verifiedBy = secrets().flatMap((secret, index) => {
        try {
          new Webhook(secret).verify(raw, headers);
          return [index];
        } catch {
          return [];
        }
      });
      received.push({ id: headers['webhook-id']!, body: JSON.parse(raw), raw, headers: req.headers, verifiedBy });
      const reply = answer(received.length);
      if (reply === 'hang') return void hanging.push(res);
      const send = () => {
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? `answer ${reply.status}`);
      };
      if (reply.delayMs === undefined) send();
      else setTimeout(send, reply.delayMs);
    });
  });
  return {
    url: `${server.origin}/hooks`,
    port: server.port,
    received,
    hanging,
    async close() {
      hanging.forEach((res) => res.destroy());
      await server.close();
    },
  };
}
