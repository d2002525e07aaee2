// Both ways the front relays a shard's answer, between a real upstream server (a shard) and a real
// client: relayExchange through a ShardSet (every proxied request) and relayAnswer of a response
// already read from an undici Pool (a session check, a fan-out's choice). Each: the answer streamed
// through intact, a shard breaking off mid-answer, a client going away mid-answer.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { FrontMetrics } from './front-metrics.js';
import { relayAnswer, relayExchange } from './relay.js';
import { ShardSet } from './shard-set.js';
import { createLogger } from '../log.js';

const servers: http.Server[] = [];
const pools: Pool[] = [];
const shardSets: ShardSet[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.destroy()));
  await Promise.all(shardSets.splice(0).map((shards) => shards.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

type Relay = (shard: string) => Promise<{ url: string; relayed: Promise<void>[] }>;

/** A front reduced to relayAnswer: every request goes to `shard`, its answer comes back through it. */
const throughRelayAnswer: Relay = async (shard) => {
  const pool = new Pool(shard, { connections: 1 });
  pools.push(pool);
  const relayed: Promise<void>[] = [];
  const url = await listen((req, res) => {
    void pool.request({ method: 'GET', path: req.url ?? '/' }).then((response) => {
      const headers = Object.fromEntries(
        Object.entries(response.headers).filter(
          (entry): entry is [string, string | string[]] =>
            entry[1] !== undefined && entry[0] !== 'connection' && entry[0] !== 'keep-alive',
        ),
      );
      relayed.push(relayAnswer(res, response.statusCode, headers, response.body));
    });
  });
  return { url, relayed };
};

/** A front reduced to relayExchange: every request goes to `shard` through a ShardSet of one shard. */
const throughRelayExchange =
  (metrics = new FrontMetrics({ defaultMetrics: false })): Relay =>
  async (shard) => {
    const shards = new ShardSet(
      [shard],
      { connectTimeoutMs: 1_000, responseTimeoutMs: 10_000, connections: 1, probeIntervalMs: 500 },
      metrics,
      createLogger('silent'),
    );
    shardSets.push(shards);
    const relayed: Promise<void>[] = [];
    const url = await listen((req, res) => {
      relayed.push(relayExchange(shards, 0, { method: 'GET', path: req.url ?? '/' }, 'id', false, res));
    });
    return { url, relayed };
  };

describe.each([
  ['relayExchange', throughRelayExchange()],
  ['relayAnswer', throughRelayAnswer],
])('%s', (_name, relayTo: Relay) => {
  it('passes the status, the headers and a body of many chunks byte for byte', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const shard = await listen((_req, res) => {
      res.writeHead(207, { 'content-type': 'application/octet-stream', 'x-shard': '1' });
      // 4 MiB in chunks: more than a socket's buffers, so the relay meets backpressure.
      for (let i = 0; i < 64; i++) res.write(Buffer.concat([Buffer.from(String(i).padStart(4, '0')), chunk]));
      res.end('end');
    });
    const front = await relayTo(shard);
    const response = await fetch(`${front.url}/big`);
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.status).toBe(207);
    expect(response.headers.get('x-shard')).toBe('1');
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(body.length).toBe(64 * (4 + chunk.length) + 3);
    expect(body.subarray(0, 4).toString()).toBe('0000');
    expect(body.subarray(63 * (4 + chunk.length), 63 * (4 + chunk.length) + 4).toString()).toBe('0063');
    expect(body.subarray(-3).toString()).toBe('end');
    await Promise.all(front.relayed);
  });

  it("cuts the client's connection when the shard breaks off mid-answer", async () => {
    const shard = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      res.write('the first part', () => res.socket?.destroy());
    });
    const front = await relayTo(shard);
    const outcome = await new Promise<string>((resolve) => {
      http.get(`${front.url}/cut`, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (part: string) => (text += part));
        response.on('aborted', () => resolve(`aborted after "${text}"`));
        response.on('end', () => resolve(`ended after "${text}"`));
      });
    });
    expect(outcome).toBe('aborted after "the first part"');
    await Promise.all(front.relayed);
  });

  it("stops the shard's answer when the client goes away mid-answer", async () => {
    let shardAnswer: ServerResponse | undefined;
    let shardClosedUnfinished: (finished: boolean) => void = () => {};
    const closed = new Promise<boolean>((resolve) => (shardClosedUnfinished = resolve));
    const shard = await listen((_req, res) => {
      shardAnswer = res;
      res.on('close', () => shardClosedUnfinished(res.writableFinished));
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('a first part of an answer that never ends');
    });
    const front = await relayTo(shard);
    await new Promise<void>((resolve) => {
      const request = http.get(`${front.url}/endless`, (response) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
      request.on('error', () => {});
    });
    expect(await closed).toBe(false);
    expect(shardAnswer?.writableEnded).toBe(false);
    await Promise.all(front.relayed);
  });
});

describe("relayExchange's metrics", () => {
  it('counts an answer once, at its head, when the client leaves an answer that never ends', async () => {
    const metrics = new FrontMetrics({ defaultMetrics: false });
    const shard = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': a live stream that never ends\n\n');
    });
    const front = await throughRelayExchange(metrics)(shard);
    await new Promise<void>((resolve) => {
      const request = http.get(`${front.url}/stream`, (response) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
      request.on('error', () => {});
    });
    await Promise.all(front.relayed);
    const text = await metrics.registry.metrics();
    expect(text).toContain('gateway_front_proxied_requests_total{shard="0",route="id",outcome="answered"} 1\n');
    expect(text).not.toContain('outcome="failed"');
    expect(text).toContain('gateway_front_upstream_seconds_count{shard="0"} 1\n');
  });
});
