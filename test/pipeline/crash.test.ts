// The daemon is killed (SIGKILL) while events flow, first attempts or retries; after a restart every
// accepted event reaches the receiver at least once, duplicates carrying the same webhook-id.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { emitEvent, insertCompany, insertEndpoint, newSecret } from '../helpers/pipeline.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

const BIN = path.resolve('bin/gateway.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-crash-'));
const env = {
  ...process.env,
  GATEWAY_PORT: '0',
  GATEWAY_DATA_DIR: dataDir,
  GATEWAY_BOOTSTRAP_TOKEN: `gwk_${randomBytes(16).toString('hex')}`,
  GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  GATEWAY_LOG_LEVEL: 'info',
};
let daemon: ChildProcess | undefined;

async function startDaemon(daemonEnv: NodeJS.ProcessEnv = env): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve'], { env: daemonEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await eventually('the daemon listening', () => log.includes('gateway listening'), 30_000);
  return child;
}

async function stopDaemon(signal: NodeJS.Signals): Promise<void> {
  if (daemon && daemon.exitCode === null) {
    const exited = new Promise((resolve) => daemon!.once('exit', resolve));
    daemon.kill(signal);
    await exited;
  }
  daemon = undefined;
}

/**
 * Emits 40 events to the company, and kills the daemon (SIGKILL) once `ready` holds after the
 * 21st: the later ones are accepted while it is down. Answers the ids of all of them.
 */
async function emitAcrossKill(store: Store, company: number, what: string, ready: () => boolean): Promise<string[]> {
  const accepted: string[] = [];
  for (let i = 0; i < 40; i += 1) {
    accepted.push(emitEvent(store, company, 'message.create', { id: i }).id);
    if (i === 20) {
      await eventually(what, ready, 30_000);
      await stopDaemon('SIGKILL');
    }
  }
  return accepted;
}

/** Every webhook received is of an accepted event and verifies with the endpoint's secret. */
function expectOnlyAcceptedAndSigned(
  received: readonly { id: string; verifiedBy: number[] }[],
  accepted: readonly string[],
): void {
  for (const hook of received) {
    expect(accepted).toContain(hook.id);
    expect(hook.verifiedBy).toEqual([0]);
  }
}

// Each test stops its daemon; this one stops what a failed start left.
afterAll(async () => {
  await stopDaemon('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('crash safety (embedded mode)', () => {
  it('delivers every accepted event at least once across a SIGKILL', async () => {
    daemon = await startDaemon();
    const store = Store.open(path.join(dataDir, 'gateway.db'));
    const secret = newSecret();
    const receiver = await startReceiver(() => [secret]);
    try {
      const company = insertCompany(store);
      insertEndpoint(store, company, receiver.url, { secret });
      const accepted = await emitAcrossKill(
        store,
        company,
        'some deliveries before the kill',
        () => receiver.received.length > 0,
      );
      daemon = await startDaemon();
      await eventually(
        'every accepted event received',
        () => accepted.every((id) => receiver.received.some((h) => h.id === id)),
        60_000,
      );
      expectOnlyAcceptedAndSigned(receiver.received, accepted);
    } finally {
      store.close();
      await receiver.close();
      await stopDaemon('SIGTERM');
    }
  }, 120_000);

  it('delivers every event whose first attempt failed across a SIGKILL among its retries', async () => {
    // A store of its own: the retries come 200 ms after a failed first attempt.
    const retryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-crash-retries-'));
    const retryEnv = {
      ...env,
      GATEWAY_DATA_DIR: retryDir,
      GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0, 200ms, 1m',
      GATEWAY_WEBHOOK_RETRY_JITTER: '0',
    };
    daemon = await startDaemon(retryEnv);
    const store = Store.open(path.join(retryDir, 'gateway.db'));
    const secret = newSecret();
    // Each event's first request is answered 500; until the kill its retry hangs (so the retries
    // are in flight, or queued behind those, when it comes); every other request is answered 200.
    let killed = false;
    const answered200 = new Set<string>();
    const receiver = await startReceiver(
      () => [secret],
      (n) => {
        const id = receiver.received[n - 1]!.id;
        const nth = receiver.received.filter((hook) => hook.id === id).length;
        if (nth === 1) return { status: 500 };
        if (nth === 2 && !killed) return 'hang';
        answered200.add(id);
        return { status: 200 };
      },
    );
    try {
      const company = insertCompany(store);
      insertEndpoint(store, company, receiver.url, { secret });
      const accepted = await emitAcrossKill(
        store,
        company,
        'a retry in flight before the kill',
        () => receiver.hanging.length > 0,
      );
      killed = true;
      daemon = await startDaemon(retryEnv);
      await eventually(
        'every accepted event answered 200 once it was retried',
        () => accepted.every((id) => answered200.has(id)),
        60_000,
      );
      const count = (where: string) =>
        store.db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM webhook_deliveries ${where}`).get()!.n;
      await eventually(
        'every delivery recorded as delivered',
        () => count("WHERE status = 'delivered'") === accepted.length,
      );
      expect(count('')).toBe(accepted.length);
      expectOnlyAcceptedAndSigned(receiver.received, accepted);
    } finally {
      store.close();
      await receiver.close();
      await stopDaemon('SIGTERM');
      fs.rmSync(retryDir, { recursive: true, force: true });
    }
  }, 120_000);
});
