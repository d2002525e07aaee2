import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMER_GROUP } from '../streams/catalog.js';
import { mergePipeline, type ShardPipeline } from './pipeline-view.js';
import { routeOf } from './routing.js';
import { mergeTokens, type TokenRow } from './token-view.js';
import { expandWorkerUrl, probeWorkers } from './worker-probe.js';

const MINUTE_A = '2026-01-01T10:00:00.000Z';
const MINUTE_B = '2026-01-01T10:01:00.000Z';

function pipeline(
  pending: number,
  oldest: string | null,
  lagMs: number,
  minutes: [string, number, number][],
  waiting: Record<string, number>,
): ShardPipeline {
  return {
    outbox: { pending, oldest_created_at: oldest, lag_ms: lagMs },
    streams: Object.entries(waiting).map(([group, messages]) => ({ stream: 'gateway.events', group, messages })),
    attempts: {
      delivered_per_second: minutes.at(-1)![1] / 60,
      error_rate: null,
      per_minute: minutes.map(([start, delivered, failed]) => ({ start, delivered, failed })),
    },
  };
}

describe('routeOf: the cluster views', () => {
  it('builds the pipeline and the token list from every shard; the rest of /admin/tokens goes to one', () => {
    expect(routeOf('GET', '/admin/pipeline')).toEqual({ kind: 'view', view: 'pipeline' });
    expect(routeOf('GET', '/admin/tokens')).toEqual({ kind: 'view', view: 'tokens' });
    expect(routeOf('POST', '/admin/tokens/3/revoke')).toEqual({ kind: 'any' });
    expect(routeOf('POST', '/admin/pipeline')).toEqual({ kind: 'any' });
  });
});

describe('mergePipeline', () => {
  it('sums the shards, labels their streams and lists every process with its health and lag', () => {
    const merged = mergePipeline(
      [
        {
          shard: 0,
          url: 'http://core-0',
          health: 200,
          pipeline: pipeline(2, '2026-01-01T10:00:30.000Z', 1_500, [[MINUTE_A, 6, 2]], {
            [CONSUMER_GROUP.dispatcher]: 4,
            [CONSUMER_GROUP.core]: 1,
          }),
        },
        { shard: 1, url: 'http://core-1', health: null, pipeline: null },
        {
          shard: 2,
          url: 'http://core-2',
          health: 200,
          pipeline: pipeline(
            1,
            '2026-01-01T10:00:10.000Z',
            900,
            [
              [MINUTE_A, 3, 1],
              [MINUTE_B, 12, 0],
            ],
            { [CONSUMER_GROUP.sender]: 5, [CONSUMER_GROUP.core]: 7 },
          ),
        },
      ],
      [
        { address: 'http://10.0.0.7:9090', status: 'ok' },
        { address: 'http://10.0.0.8:9090', status: 'down' },
      ],
      { address: 'http://front-a:8080' },
    );
    expect(merged.outbox).toEqual({ pending: 3, oldest_created_at: '2026-01-01T10:00:10.000Z', lag_ms: 1_500 });
    expect(merged.attempts).toEqual({
      delivered_per_second: 0.3,
      error_rate: 0.125,
      per_minute: [
        { start: MINUTE_A, delivered: 9, failed: 3 },
        { start: MINUTE_B, delivered: 12, failed: 0 },
      ],
    });
    expect(merged.streams.map((s) => [s.shard, s.group, s.messages])).toEqual([
      [0, CONSUMER_GROUP.dispatcher, 4],
      [0, CONSUMER_GROUP.core, 1],
      [2, CONSUMER_GROUP.sender, 5],
      [2, CONSUMER_GROUP.core, 7],
    ]);
    expect(merged.processes).toEqual([
      {
        role: 'front',
        shard: null,
        address: 'http://front-a:8080',
        status: 'degraded',
        outbox_lag_ms: null,
        messages_waiting: null,
      },
      { role: 'core', shard: 0, address: 'http://core-0', status: 'ok', outbox_lag_ms: 1_500, messages_waiting: 1 },
      { role: 'core', shard: 1, address: 'http://core-1', status: 'down', outbox_lag_ms: null, messages_waiting: null },
      { role: 'core', shard: 2, address: 'http://core-2', status: 'ok', outbox_lag_ms: 900, messages_waiting: 7 },
      // The workers share the dispatcher's and the senders' groups of every shard.
      {
        role: 'worker',
        shard: null,
        address: 'http://10.0.0.7:9090',
        status: 'ok',
        outbox_lag_ms: null,
        messages_waiting: 9,
      },
      {
        role: 'worker',
        shard: null,
        address: 'http://10.0.0.8:9090',
        status: 'down',
        outbox_lag_ms: null,
        messages_waiting: null,
      },
    ]);
  });

  it('answers an empty hour and a healthy front when nothing was attempted and every shard is up', () => {
    const merged = mergePipeline(
      [{ shard: 0, url: 'http://core-0', health: 200, pipeline: pipeline(0, null, 0, [[MINUTE_A, 0, 0]], {}) }],
      [],
      { address: 'http://front' },
    );
    expect(merged.outbox).toEqual({ pending: 0, oldest_created_at: null, lag_ms: 0 });
    expect(merged.attempts.error_rate).toBeNull();
    expect(merged.processes.map((p) => [p.role, p.status])).toEqual([
      ['front', 'ok'],
      ['core', 'ok'],
    ]);
  });
});

describe('mergeTokens', () => {
  const token = (id: number, lastUsed: string | null, revokedAt: string | null = null): TokenRow => ({
    id,
    account_id: 1,
    state: revokedAt === null ? 'active' : 'revoked',
    last_used_at: lastUsed,
    revoked_at: revokedAt,
  });

  it('takes the latest use of any shard, a revocation any shard saw, and a token only one shard knows yet', () => {
    const merged = mergeTokens([
      [token(1, '2026-01-01T10:00:00.000Z'), token(65, null)],
      [token(1, '2026-01-01T11:00:00.000Z'), token(65, null, '2026-01-01T09:00:00.000Z'), token(2, null)],
      [token(1, null), token(65, '2026-01-01T08:00:00.000Z')],
    ]);
    expect(merged).toEqual([
      token(1, '2026-01-01T11:00:00.000Z'),
      token(2, null),
      token(65, '2026-01-01T08:00:00.000Z', '2026-01-01T09:00:00.000Z'),
    ]);
  });
});

describe('the workers of the pipeline page', () => {
  let servers: http.Server[];
  const urls: string[] = [];
  const answers: [number, unknown][] = [
    [200, { status: 'ok', role: 'worker', kafka_clients: { recovering: [], recreated: {} } }],
    [200, { status: 'ok', role: 'worker', kafka_clients: { recovering: [{ client: 'consumer' }], recreated: {} } }],
    [503, { status: 'failing' }],
  ];

  beforeAll(async () => {
    servers = answers.map(([status, body]) =>
      http.createServer((req, res) => {
        res.writeHead(req.url === '/healthz' ? status : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      }),
    );
    for (const server of servers) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('expands a name to every address it resolves to, and keeps an address or a name that does not resolve', async () => {
    const resolve = async (host: string) => {
      if (host === 'workers.gateway.svc') return ['10.0.0.7', '10.0.0.8', '10.0.0.7'];
      if (host === 'v6.gateway.svc') return ['fd00::7'];
      throw new Error(`ENOTFOUND ${host}`);
    };
    expect(await expandWorkerUrl('http://workers.gateway.svc:9090', resolve)).toEqual([
      'http://10.0.0.7:9090',
      'http://10.0.0.8:9090',
    ]);
    expect(await expandWorkerUrl('http://v6.gateway.svc:9090', resolve)).toEqual(['http://[fd00::7]:9090']);
    expect(await expandWorkerUrl('http://10.1.2.3:9090', resolve)).toEqual(['http://10.1.2.3:9090']);
    expect(await expandWorkerUrl('http://gone.gateway.svc:9090', resolve)).toEqual(['http://gone.gateway.svc:9090']);
  });

  it("reads each worker's /healthz: ok, recovering, unhealthy, and down when nothing answers", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    // localhost resolves to 127.0.0.1 (and maybe ::1): one worker, asked once.
    const viaName = urls[0]!.replace('127.0.0.1', 'localhost');
    expect(await probeWorkers([...urls, closedUrl, viaName], 1_000)).toEqual([
      { address: urls[0], status: 'ok' },
      { address: urls[1], status: 'recovering' },
      { address: urls[2], status: 'unhealthy' },
      { address: closedUrl, status: 'down' },
    ]);
  });
});
