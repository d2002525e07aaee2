// A Kafka destination through an outage of the company's broker (issue 49 item 6): a private broker
// (test/helpers/private-broker.ts) stopped while events are being delivered and started again on the
// same data, by a gateway in both stream modes (its own streams on the shared test broker).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { kafkaSink, type BrokerSink } from '../helpers/broker-sinks.js';
import {
  attemptLogOf,
  brokerEndpoint,
  emitEvents,
  eventIds,
  OUTAGE_RETRY_SCHEDULE,
} from '../helpers/destination-scenarios.js';
import { startPrivateBroker, type PrivateBroker } from '../helpers/private-broker.js';
import { newCompany } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

let broker: PrivateBroker;
beforeAll(async () => {
  broker = await startPrivateBroker('kafka-destination');
}, 120_000);
afterAll(async () => {
  await broker?.remove();
}, 60_000);

const deliveriesOf = (gw: TestGateway, endpointId: number) =>
  gw.store.db
    .prepare(`SELECT event_id, status FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY seq`)
    .all(endpointId) as { event_id: string; status: string }[];

describe.each(['sqlite', 'kafka'] as const)('a Kafka destination through a broker outage, %s streams', (streams) => {
  let gw: TestGateway;
  const sinks: BrokerSink[] = [];

  beforeAll(async () => {
    gw = await startTestGateway({ ...TO_RECEIVERS, GATEWAY_WEBHOOK_RETRY_JITTER: '0' }, { streams });
  }, 120_000);
  afterAll(async () => {
    for (const s of sinks) await s.close().catch(() => {});
    await gw?.close();
  });

  it('retries through the outage: nothing lost, in order, duplicates sharing their id, the failures in the attempt log', async () => {
    const company = await newCompany(gw);
    const target = await kafkaSink([broker.brokers]);
    sinks.push(target);
    const endpoint = await brokerEndpoint(gw, company, target, {
      ordering: 'strict',
      retry_schedule: OUTAGE_RETRY_SCHEDULE,
    });
    const first = emitEvents(gw, company, 3);
    await eventually('the first events on the topic', () => eventIds(target.received).length >= 3, 60_000);

    await broker.stop();
    const during = emitEvents(gw, company, 5);
    await eventually(
      'an attempt failed by the outage',
      () => attemptLogOf(gw, endpoint.id).some((a) => a.outcome === 'retry'),
      60_000,
    );
    await broker.start();
    await target.reconnect();

    const ids = [...first, ...during].map((e) => e.id);
    // At least once: a publish whose acknowledgement the outage cut may be on the topic twice.
    const firstSeen = () => [...new Set(eventIds(target.received))];
    await eventually('every event on the topic', () => firstSeen().length >= ids.length, 90_000);
    expect(firstSeen()).toEqual(ids);
    const bodyOf = new Map([...first, ...during].map((e) => [e.id, e.body]));
    for (const message of target.received.filter((m) => bodyOf.has(m.id)))
      expect(JSON.parse(message.body)).toEqual(bodyOf.get(message.id));
    expect(new Set(target.received.map((m) => m.key))).toEqual(new Set([`${company}:${endpoint.id}`]));

    await eventually('every delivery delivered', () =>
      deliveriesOf(gw, endpoint.id).every((d) => d.status === 'delivered'),
    );
    const messageDeliveries = deliveriesOf(gw, endpoint.id).filter((d) => ids.includes(d.event_id));
    expect(messageDeliveries.map((d) => d.event_id)).toEqual(ids);
    const attempts = attemptLogOf(gw, endpoint.id).filter((a) => ids.includes(a.event_id));
    const failed = attempts.filter((a) => a.outcome !== 'delivered');
    expect(failed.length).toBeGreaterThanOrEqual(1);
    for (const attempt of failed)
      expect(attempt).toEqual({
        event_id: attempt.event_id,
        status_code: null,
        outcome: 'retry',
        error: expect.stringMatching(/^Kafka: /),
      });
    // Each event delivered once in the log, after its failures.
    expect(attempts.filter((a) => a.outcome === 'delivered').map((a) => a.event_id)).toEqual(ids);
  }, 240_000);
});
