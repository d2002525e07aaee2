// End to end in Kafka mode: a core gateway (store, relay, attempt recorder) and one separate
// `gateway serve --role worker` process (the dispatcher), against the real test broker.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { systemClock } from '../../src/streams/stream.js';
import { ADMIN_TOKEN, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { emitEvent, insertCompany, insertEndpoint, newSecret } from '../helpers/pipeline.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

const BIN = path.resolve('bin/gateway.js');
const namespace = `e2e-${randomUUID().slice(0, 8)}.`;
const kafkaEnv = {
  GATEWAY_KAFKA_BROKERS: inject('kafkaBrokers'),
  GATEWAY_KAFKA_NAMESPACE: namespace,
  GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0,1s,1s',
  GATEWAY_WEBHOOK_RETRY_JITTER: '0',
};

let core: TestGateway;
const workers: { child: ChildProcess; log: string }[] = [];
const workerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-worker-'));
const workerLog = () => workers.map((w) => w.log).join('');

function startWorker(): { child: ChildProcess; log: string } {
  const child = spawn(process.execPath, [BIN, 'serve', '--role', 'worker'], {
    env: {
      ...process.env,
      ...kafkaEnv,
      GATEWAY_DATA_DIR: workerDir,
      GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      GATEWAY_LOG_LEVEL: 'debug',
      GATEWAY_WORKER_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const worker = { child, log: '' };
  child.stdout.on('data', (chunk: Buffer) => (worker.log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (worker.log += chunk.toString()));
  workers.push(worker);
  return worker;
}

/** Whether the worker's latest join of the events group gave it at least one partition. */
function holdsEventPartitions(log: string): boolean {
  const joins = log
    .split('\n')
    .filter((line) => line.includes('consumer joined its group') && line.includes('"stream":"gateway.events"'))
    .map((line) => JSON.parse(line) as { partitions: number[] });
  return (joins.at(-1)?.partitions.length ?? 0) > 0;
}

beforeAll(async () => {
  core = await startTestGateway(
    { ...TO_RECEIVERS, ...kafkaEnv },
    { clock: systemClock, role: 'core', streams: 'kafka' },
  );
  const first = startWorker();
  await eventually('the first worker holding partitions', () => holdsEventPartitions(first.log), 60_000);
  const second = startWorker();
  // The second join rebalances the group: both hold part of the partitions afterwards.
  await eventually(
    'both workers holding partitions',
    () => holdsEventPartitions(second.log) && holdsEventPartitions(first.log),
    60_000,
  );
}, 180_000);

afterAll(async () => {
  for (const { child } of workers) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await core?.close();
  fs.rmSync(workerDir, { recursive: true, force: true });
}, 60_000);

describe('Kafka mode: core plus a separate worker process', () => {
  it('delivers signed events through the worker and records the attempts in the core', async () => {
    const company = insertCompany(core.store);
    const secret = newSecret();
    const receiver = await startReceiver(
      () => [secret],
      (n) => (n === 1 ? { status: 500 } : { status: 200 }),
    );
    try {
      insertEndpoint(core.store, company, receiver.url, { secret });
      const events = Array.from({ length: 5 }, (_, i) => emitEvent(core.store, company, 'message.create', { id: i }));
      await eventually(
        'every event recorded as delivered in the core',
        () =>
          events.every((e) =>
            core.store.deliverySearch
              .list({ company_id: company, status: 'delivered' }, undefined, 50)
              .rows.some((d) => d.event_id === e.id),
          ),
        60_000,
      );
      // Every event arrived, verified, with its body's text as the core wrote it; the one answered
      // 500 came again with the same id.
      for (const event of events) {
        const copies = receiver.received.filter((h) => h.id === event.id);
        expect(copies.length).toBeGreaterThanOrEqual(1);
        for (const copy of copies) {
          expect(copy.verifiedBy).toEqual([0]);
          expect(copy.raw).toBe(JSON.stringify(event.body));
        }
      }
      const retried = receiver.received[0]!.id;
      expect(receiver.received.filter((h) => h.id === retried).length).toBeGreaterThanOrEqual(2);
      const delivery = core.store.deliverySearch
        .list({ company_id: company }, undefined, 50)
        .rows.find((d) => d.event_id === retried)!;
      expect(core.store.deliveries.attempts(delivery.id).map((a) => [a.number, a.status_code, a.outcome])).toEqual([
        [1, 500, 'retry'],
        [2, 200, 'delivered'],
      ]);
      expect(workerLog()).not.toContain(secret.slice(6));
    } finally {
      await receiver.close();
    }
  }, 90_000);

  it('delivers events of one endpoint too large together for one record batch, and one larger than the broker default of 1 MB', async () => {
    const company = insertCompany(core.store);
    const secret = newSecret();
    const receiver = await startReceiver(() => [secret]);
    try {
      insertEndpoint(core.store, company, receiver.url, { secret });
      // One endpoint, so one key and one partition: 1.6 MB of jobs in one relay batch, then 1.2 MB in one job.
      const events = Array.from({ length: 20 }, (_, i) =>
        emitEvent(core.store, company, 'message.create', { id: i, text: `${i}`.padEnd(80_000, 'x') }),
      );
      events.push(emitEvent(core.store, company, 'message.create', { id: 20, text: 'y'.repeat(1_200_000) }));
      await eventually(
        'every event received',
        () => events.every((e) => receiver.received.some((h) => h.id === e.id)),
        60_000,
      );
      for (const event of events) {
        const copy = receiver.received.find((h) => h.id === event.id)!;
        expect(copy.verifiedBy).toEqual([0]);
        expect(copy.body).toEqual(event.body);
      }
      await eventually(
        'every delivery recorded as delivered in the core',
        () =>
          core.store.deliverySearch.list({ company_id: company, status: 'delivered' }, undefined, 50).rows.length ===
          events.length,
        30_000,
      );
    } finally {
      await receiver.close();
    }
  }, 90_000);

  it('shows its Kafka clients at /healthz and /metrics: none being recreated, and the count of recreations', async () => {
    const health = await fetch(`${core.baseUrl}/healthz`).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as any,
    }));
    expect(health.status).toBe(200);
    expect(health.body.kafka_clients).toEqual({
      recovering: [],
      recreated: { producer: expect.any(Number), consumer: expect.any(Number) },
    });
    const metrics = await (
      await fetch(`${core.baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).text();
    const { producer, consumer } = health.body.kafka_clients.recreated;
    expect(metrics.split('\n').filter((l) => l.startsWith('gateway_kafka_'))).toEqual([
      `gateway_kafka_client_recreations_total{client="producer"} ${producer}`,
      `gateway_kafka_client_recreations_total{client="consumer"} ${consumer}`,
      'gateway_kafka_clients_recovering{client="producer"} 0',
      'gateway_kafka_clients_recovering{client="consumer"} 0',
    ]);
  });

  it('answers /healthz and /metrics of each worker on GATEWAY_WORKER_PORT, with its own Kafka clients', async () => {
    for (const { log } of workers) {
      const { port } = JSON.parse(log.split('\n').find((line) => line.includes('"msg":"worker started"'))!) as {
        port: number;
      };
      const health = await fetch(`http://127.0.0.1:${port}/healthz`).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as any,
      }));
      expect(health).toEqual({
        status: 200,
        body: {
          status: 'ok',
          role: 'worker',
          kafka_clients: { recovering: [], recreated: { producer: expect.any(Number), consumer: expect.any(Number) } },
        },
      });
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics.split('\n').filter((l) => l.startsWith('gateway_kafka_clients_recovering'))).toEqual([
        'gateway_kafka_clients_recovering{client="producer"} 0',
        'gateway_kafka_clients_recovering{client="consumer"} 0',
      ]);
      expect(metrics).toContain('process_resident_memory_bytes');
      // A worker serves nothing else.
      expect((await fetch(`http://127.0.0.1:${port}/p1/companies`)).status).toBe(404);
    }
  });

  it('shares the deliveries between the two worker processes', async () => {
    const receiver = await startReceiver(() => []);
    // A worker logs its attempt once the answer came, after the receiver saw the request.
    const attemptsBy = () =>
      workers.map((w) => w.log.split('\n').filter((line) => line.includes('"msg":"webhook attempt"')).length);
    const before = attemptsBy();
    try {
      // One endpoint per company: twelve keys spread over the partitions of both workers.
      const events = Array.from({ length: 12 }, (_, i) => {
        const company = insertCompany(core.store, `shared-${i}`);
        insertEndpoint(core.store, company, receiver.url);
        return emitEvent(core.store, company);
      });
      await eventually(
        'every event received',
        () => events.every((e) => receiver.received.some((h) => h.id === e.id)),
        60_000,
      );
      const since = () => attemptsBy().map((n, i) => n - before[i]!);
      await eventually(
        'the attempt lines of all twelve in the logs',
        () => since().reduce((a, n) => a + n, 0) >= 12,
        10_000,
      );
      expect(
        since().every((n) => n > 0),
        `attempts per worker: ${since().join(', ')}`,
      ).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
