// The Kafka broker stops and comes back while events flow: nothing accepted is lost. This test runs
// its OWN single-node broker (scripts/kafka/kafka.sh with a private port and state dir), never the
// shared test broker, and restarts it with the same data so that committed offsets survive.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/streams/stream.js';
import { emitEvent, insertCompany, insertEndpoint, startPipelineGateway, startReceiver, type PipelineGateway } from './harness.js';
import { eventually } from './wait.js';

const port = 21000 + Math.floor(Math.random() * 4000) * 2;
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-kafka-outage-'));
const scriptEnv = { ...process.env, KAFKA_PORT: String(port), KAFKA_CONTROLLER_PORT: String(port + 1), KAFKA_STATE_DIR: stateDir, KAFKA_LEASE: '' };

function script(command: 'start' | 'stop'): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile('bash', ['scripts/kafka/kafka.sh', command], { env: scriptEnv }, (error, _out, stderr) => (error ? reject(new Error(stderr)) : resolve())),
  );
}

/** Stops the private broker and starts the same command line again on the same data. */
async function restartBroker(whileDown: () => Promise<void>): Promise<void> {
  const pid = Number(fs.readFileSync(path.join(stateDir, 'kafka.pid'), 'utf8'));
  const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
  process.kill(pid, 'SIGTERM');
  await eventually('the broker gone', () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }, 60_000);
  await whileDown();
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: 'ignore' });
  child.unref();
  fs.writeFileSync(path.join(stateDir, 'kafka.pid'), String(child.pid));
}

let core: PipelineGateway;
beforeAll(async () => {
  await script('start');
  core = await startPipelineGateway(systemClock, { GATEWAY_KAFKA_BROKERS: `127.0.0.1:${port}`, GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0,1s,1s,1s' });
}, 180_000);
afterAll(async () => {
  await core?.close();
  await script('stop').catch(() => {});
  fs.rmSync(stateDir, { recursive: true, force: true });
}, 120_000);

describe('Kafka broker outage', () => {
  it('delivers every accepted event once the broker is back', async () => {
    const receiver = await startReceiver(() => []);
    try {
      const company = insertCompany(core.store);
      insertEndpoint(core.store, company, receiver.url);
      const accepted = Array.from({ length: 5 }, (_, i) => emitEvent(core.store, company, 'message.create', { i }).id);
      await eventually('deliveries before the outage', () => accepted.every((id) => receiver.received.some((h) => h.id === id)), 60_000);

      await restartBroker(async () => {
        for (let i = 0; i < 5; i += 1) accepted.push(emitEvent(core.store, company, 'message.create', { i: i + 5 }).id);
        await eventually('the relay failing to publish', () => core.logText().includes('outbox relay publishing a batch failed'), 60_000);
        expect(core.store.outbox.lag().pending).toBeGreaterThan(0);
      });

      await eventually('every accepted event received', () => accepted.every((id) => receiver.received.some((h) => h.id === id)), 90_000);
      await eventually('every delivery recorded', () => core.store.deliveries.count({ company_id: company, status: 'delivered' }) === 10, 60_000);
      expect(core.store.outbox.lag().pending).toBe(0);
    } finally {
      await receiver.close();
    }
  }, 240_000);
});
