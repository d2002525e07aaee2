// A delivery's first attempt goes to the embedded stream in memory only (no stream row): what the
// daemon had not sent when it stopped is sent after the next start, from the pending delivery rows.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startGateway, type RunningGateway } from '../../src/roles/server.js';
import { systemClock } from '../../src/streams/stream.js';
import { emitEvent, insertCompany, insertEndpoint, newSecret, startReceiver, type Answer } from './harness.js';
import { eventually, memoryLogger } from './wait.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<{ gateway: RunningGateway; log: () => string }> {
  const config = loadConfig({
    GATEWAY_PORT: '0',
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_BOOTSTRAP_TOKEN: `gwk_${randomBytes(16).toString('hex')}`,
    GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    GATEWAY_WEBHOOK_TIMEOUT: '500ms',
    GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0, 1h',
  });
  const { logger, text } = memoryLogger('info');
  return { gateway: await startGateway(config, logger, { clock: systemClock }), log: text };
}

describe('first attempts kept in memory only (embedded mode)', () => {
  it('sends at the next start the first attempts a stop left queued, with their webhook-id, and leaves the others alone', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-unsent-'));
    dirs.push(dataDir);
    const secret = newSecret();
    let answer: Answer = 'hang';
    const receiver = await startReceiver(() => [secret], () => answer);
    try {
      let { gateway, log } = await start(dataDir);
      const { store } = gateway;
      const company = insertCompany(store);
      insertEndpoint(store, company, receiver.url, { secret });
      // One endpoint, one key: the first attempt hangs until the timeout, the others wait behind it.
      const events = [1, 2, 3].map((n) => emitEvent(store, company, 'message.create', { id: n }).id);
      await eventually('the first attempt under way', () => receiver.received.length === 1);
      expect(store.db.prepare('SELECT count(*) AS n FROM stream_messages').get()).toEqual({ n: 0 });
      await gateway.close();
      expect(log()).not.toContain('left unsent');

      answer = { status: 200 };
      ({ gateway, log } = await start(dataDir));
      try {
        await eventually('the two queued ones', () => receiver.received.length === 3);
        expect(receiver.received.map((hook) => hook.id)).toEqual([events[0], events[1], events[2]]);
        expect(receiver.received.every((hook) => hook.verifiedBy.length === 1)).toBe(true);
        expect(log()).toContain('"deliveries":2,"msg":"first attempts left unsent by the last run are due now"');
        await eventually('their attempts recorded', () =>
          gateway.store.db.prepare<[], { n: number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'delivered'").get()!.n === 2,
        );
        // The attempt that timed out before the stop waits for its retry (an hour away), not sent again now.
        const rows = gateway.store.db
          .prepare('SELECT event_id, status, auto_attempts, next_attempt_at IS NOT NULL AS scheduled FROM webhook_deliveries ORDER BY seq')
          .all();
        expect(rows).toEqual([
          { event_id: events[0], status: 'pending', auto_attempts: 1, scheduled: 1 },
          { event_id: events[1], status: 'delivered', auto_attempts: 1, scheduled: 0 },
          { event_id: events[2], status: 'delivered', auto_attempts: 1, scheduled: 0 },
        ]);
      } finally {
        await gateway.close();
      }
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
