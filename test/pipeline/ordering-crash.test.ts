// Strict ordering across a SIGKILL of the daemon (built, bin/gateway.js), in embedded and in Kafka
// mode: after the restart every event reaches the receiver, and the receiver sees them in creation
// order (an attempt cut short by the kill may come again, right after itself).
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { emitEvent, insertCompany, insertEndpoint } from '../helpers/pipeline.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A receiver that answers 200 after `delayMs`, so the kill lands while events are on their way; answers the webhook-ids received, in arrival order. */
async function slowReceiver(delayMs: number) {
  const receiver = await startReceiver(
    () => [],
    () => ({ status: 200, delayMs }),
  );
  cleanups.push(() => receiver.close());
  return { url: receiver.url, ids: () => receiver.received.map((r) => r.id) };
}

/**
 * The ids in the order they first arrived. Delivery is at least once: events sent before the kill
 * whose outcome was not yet recorded (in Kafka mode, whose offsets were not yet committed) are sent
 * again after the restart, with the same webhook-id, which a receiver drops as a repeat.
 */
const firstArrivals = (ids: readonly string[]) => ids.filter((id, i) => ids.indexOf(id) === i);

const MODES = {
  embedded: (): Record<string, string> => ({}),
  kafka: (): Record<string, string> => ({
    GATEWAY_KAFKA_BROKERS: inject('kafkaBrokers'),
    GATEWAY_KAFKA_NAMESPACE: `ordercrash-${randomUUID().slice(0, 8)}.`,
    GATEWAY_KAFKA_SESSION_TIMEOUT: '6s',
  }),
};

describe.each(['embedded', 'kafka'] as const)('strict ordering across a SIGKILL (%s)', (mode) => {
  it('delivers every event in creation order after the daemon is killed mid-way and started again', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-ordercrash-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env = {
      GATEWAY_PORT: '0',
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_BOOTSTRAP_TOKEN: `gwk_${randomBytes(16).toString('hex')}`,
      GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      GATEWAY_LOG_LEVEL: 'info',
      ...MODES[mode](),
    };
    let daemon: GatewayProcess = await startGatewayProcess('all', env);
    cleanups.push(async () => void (await daemon.stop()));
    const store = Store.open(path.join(dataDir, 'gateway.db'));
    cleanups.push(() => store.close());
    const receiver = await slowReceiver(40);

    const company = insertCompany(store);
    const endpoint = insertEndpoint(store, company, receiver.url);
    store.db.prepare("UPDATE webhook_endpoints SET ordering = 'strict' WHERE id = ?").run(endpoint.id);
    const created = Array.from({ length: 40 }, (_, i) => emitEvent(store, company, 'message.create', { id: i }).id);

    await eventually('some deliveries before the kill', () => receiver.ids().length >= 8, 60_000);
    await daemon.kill();
    const atKill = receiver.ids().length;
    expect(atKill).toBeLessThan(created.length);
    created.push(
      ...Array.from({ length: 5 }, (_, i) => emitEvent(store, company, 'message.create', { id: 100 + i }).id),
    );

    daemon = await startGatewayProcess('all', env);
    const delivered = () =>
      (
        store.db
          .prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'delivered'")
          .get(endpoint.id) as { n: number }
      ).n;
    await eventually('every event delivered', () => delivered() === created.length, 90_000);
    expect(firstArrivals(receiver.ids())).toEqual(created);
    // Nothing is sent again but what was in flight at the kill: the repeats are events sent before it.
    const ids = receiver.ids();
    const repeats = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(
      repeats.every((id) => ids.indexOf(id) < atKill),
      repeats.join(),
    ).toBe(true);
  }, 180_000);
});
