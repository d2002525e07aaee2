// Kafka destinations end to end (issue 49 item 1): a company's events published on its own topic
// (here on the shared test broker) by a gateway in both stream modes, next to a webhook endpoint.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { kafkaSink } from '../helpers/broker-sinks.js';
import {
  attemptsOf,
  brokerEndpoint,
  emitEvents,
  eventIds,
  heldWhileDisabled,
  hooksPath,
  sameEventsAsWebhooks,
  sinkPool,
  startDestinationGateway,
  testMessage,
} from '../helpers/destination-scenarios.js';
import type { Receiver } from '../helpers/receiver.js';
import { newCompany } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

const brokers = inject('kafkaBrokers').split(',');

describe.each(['sqlite', 'kafka'] as const)('a Kafka destination, %s streams', (streams) => {
  let gw: TestGateway;
  let receiver: Receiver;
  const { sink, closeSinks } = sinkPool(() => kafkaSink(brokers));

  beforeAll(async () => {
    ({ gw, receiver } = await startDestinationGateway(streams, '0,1s,1s,1s'));
  }, 120_000);
  afterAll(async () => {
    await closeSinks();
    await receiver?.close();
    await gw?.close();
  });

  it('gets the same events, ids and order as a webhook endpoint, signed, keyed by its endpoint', async () => {
    await sameEventsAsWebhooks(gw, await sink(), receiver);
  }, 120_000);

  it('publishes the test message on demand', async () => {
    await testMessage(gw, await sink());
  }, 60_000);

  it('holds its events while disabled and delivers them in order once enabled', async () => {
    await heldWhileDisabled(gw, await sink());
  }, 120_000);

  it('records an unreachable broker as the attempt error, retries, and delivers once the settings point at a broker', async () => {
    const company = await newCompany(gw);
    const target = await sink();
    const endpoint = await brokerEndpoint(gw, company, {
      ...target,
      settings: { brokers: ['127.0.0.1:1'], topic: 'nowhere' },
    });
    const [event] = emitEvents(gw, company, 1);
    const attempts = () => attemptsOf(gw, endpoint.id);
    await eventually('two failed attempts recorded', () => attempts().length >= 2, 60_000);
    expect(attempts()[0]).toEqual({
      outcome: 'retry',
      error: expect.stringMatching(/^Kafka: .*ECONNREFUSED/) as unknown,
    });
    // Other settings: the next attempt connects to them (the old connection is dropped).
    const moved = await gw.request('PATCH', `${hooksPath(company)}/${endpoint.id}`, {
      json: { kafka: target.settings },
    });
    expect(moved.status, moved.text).toBe(200);
    await eventually('the event on the broker', () => eventIds(target.received).includes(event!.id), 60_000);
    await eventually('the delivery delivered', () => attempts().at(-1)?.outcome === 'delivered', 30_000);
    expect(eventIds(target.received)).toEqual([event!.id]);
  }, 120_000);
});
