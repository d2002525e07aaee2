// Operational events in Kafka mode: a core gateway (store, relay, attempt recorder, retry scheduler)
// and a separate `gateway serve --role worker` process (the dispatcher) on the real test broker. The
// core writes the events and fans them out to the company's endpoints and the operator webhook; the
// worker sends them; the core records the attempts that come back on gateway.attempts.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { systemClock } from '../../src/streams/stream.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import {
  exhaustedScenario,
  goneEndpointScenario,
  operatorEnv,
  startOperatorReceiver,
  type OperatorReceiver,
} from './operational-scenarios.js';
import { eventually } from '../helpers/wait.js';

const BIN = path.resolve('bin/gateway.js');
const kafkaEnv = {
  GATEWAY_KAFKA_BROKERS: inject('kafkaBrokers'),
  GATEWAY_KAFKA_NAMESPACE: `opevents-${randomUUID().slice(0, 8)}.`,
};

let core: TestGateway;
let operator: OperatorReceiver;
let worker: { child: ChildProcess; log: string } | undefined;
const workerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-worker-'));

beforeAll(async () => {
  operator = await startOperatorReceiver();
  // The retry schedule is applied by the dispatcher: the worker gets it too.
  const env = { ...kafkaEnv, ...operatorEnv(operator) };
  core = await startTestGateway({ ...TO_RECEIVERS, ...env }, { clock: systemClock, role: 'core', streams: 'kafka' });
  const child = spawn(process.execPath, [BIN, 'serve', '--role', 'worker'], {
    env: {
      ...process.env,
      ...env,
      GATEWAY_DATA_DIR: workerDir,
      GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      GATEWAY_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = { child, log: '' };
  worker = started;
  child.stdout.on('data', (chunk: Buffer) => (started.log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (started.log += chunk.toString()));
  await eventually(
    'the worker holding the partitions of gateway.events',
    () =>
      started.log
        .split('\n')
        .some((line) => line.includes('consumer joined its group') && line.includes('"stream":"gateway.events"')),
    60_000,
  );
}, 120_000);

afterAll(async () => {
  if (worker !== undefined && worker.child.exitCode === null) {
    const exited = new Promise((resolve) => worker!.child.once('exit', resolve));
    worker.child.kill('SIGTERM');
    await exited;
  }
  await core?.close();
  await operator?.receiver.close();
  fs.rmSync(workerDir, { recursive: true, force: true });
}, 60_000);

describe('operational events (Kafka: core plus a worker process)', () => {
  it('an endpoint answering 410 is disabled: webhook.disabled and delivery.failed reach the endpoints that want them and the operator, never the endpoint itself', async () => {
    await goneEndpointScenario(core, operator);
  }, 90_000);

  it('deliveries failed after their last attempt write delivery.failed to the other endpoint; their failures and the operator copies failing write none', async () => {
    await exhaustedScenario(core, operator);
  }, 90_000);
});
