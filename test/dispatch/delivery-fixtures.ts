// What the test/dispatch/delivery-*.test.ts files share: a gateway per test on a ManualClock, sending
// to local receivers, closed with the receivers when the test ends, and the store rows the tests read.
import { ManualClock } from '../../src/streams/stream.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { startReceiver } from '../helpers/receiver.js';

const cleanups: (() => Promise<void>)[] = [];

/** Closes what the current test started, latest first: each file's afterEach. */
export async function runCleanups(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) await c();
}

export async function setup(env: Record<string, string> = {}) {
  const clock = new ManualClock();
  const gw = await startTestGateway({ ...TO_RECEIVERS, ...env }, { clock });
  cleanups.push(() => gw.close());
  return { clock, gw };
}

export async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  cleanups.push(() => r.close());
  return r;
}

export const deliveryOf = (gw: TestGateway, eventId: string) =>
  gw.store.db.prepare('SELECT * FROM webhook_deliveries WHERE event_id = ?').get(eventId) as
    { id: string; status: string; attempt_count: number; next_attempt_at: number | null } | undefined;

export const attemptsOf = (gw: TestGateway, deliveryId: string) => gw.store.deliveries.attempts(deliveryId);
