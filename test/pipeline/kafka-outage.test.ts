// The Kafka broker stops and comes back while events flow: nothing accepted is lost. This test runs
// its OWN single-node broker (test/helpers/private-broker.ts), never the shared test broker, and
// restarts it with the same data so that committed offsets survive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/streams/stream.js';
import { startPrivateBroker, type PrivateBroker } from '../helpers/private-broker.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { emitEvent, insertCompany, insertEndpoint } from '../helpers/pipeline.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

let broker: PrivateBroker;
let core: TestGateway;
beforeAll(async () => {
  broker = await startPrivateBroker('gateway-kafka-outage');
  core = await startTestGateway(
    { ...TO_RECEIVERS, GATEWAY_KAFKA_BROKERS: broker.brokers, GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0,1s,1s,1s' },
    { clock: systemClock, streams: 'kafka' },
  );
}, 180_000);
afterAll(async () => {
  await core?.close();
  await broker?.remove();
}, 120_000);

describe('Kafka broker outage', () => {
  it('delivers every accepted event once the broker is back', async () => {
    const receiver = await startReceiver(() => []);
    try {
      const company = insertCompany(core.store);
      insertEndpoint(core.store, company, receiver.url);
      const accepted = Array.from({ length: 5 }, (_, i) => emitEvent(core.store, company, 'message.create', { i }).id);
      await eventually(
        'deliveries before the outage',
        () => accepted.every((id) => receiver.received.some((h) => h.id === id)),
        60_000,
      );

      await broker.stop();
      for (let i = 0; i < 5; i += 1) accepted.push(emitEvent(core.store, company, 'message.create', { i: i + 5 }).id);
      await eventually(
        'the relay failing to publish',
        () => core.logText().includes('outbox relay publishing a batch failed'),
        60_000,
      );
      expect(core.store.outbox.lag().pending).toBeGreaterThan(0);
      await broker.start();

      await eventually(
        'every accepted event received',
        () => accepted.every((id) => receiver.received.some((h) => h.id === id)),
        90_000,
      );
      await eventually(
        'every delivery recorded',
        () => core.store.deliverySearch.count({ company_id: company, status: 'delivered' }) === 10,
        60_000,
      );
      expect(core.store.outbox.lag().pending).toBe(0);
    } finally {
      await receiver.close();
    }
  }, 240_000);
});
