// SQS destinations end to end (issue 49 item 1): a company's events sent to its own queue of a real
// SQS-compatible server (ElasticMQ, test/helpers/elasticmq.ts), standard and FIFO, by a gateway in
// both stream modes, next to a webhook endpoint; the server stopped during delivery and started
// again on the same port and data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { sqsSink } from '../helpers/broker-sinks.js';
import {
  attemptsOf,
  brokerEndpoint,
  emitEvents,
  eventIds,
  heldWhileDisabled,
  OUTAGE_RETRY_SCHEDULE,
  sameEventsAsWebhooks,
  sinkPool,
  startDestinationGateway,
  testMessage,
} from '../helpers/destination-scenarios.js';
import { startElasticMq, type ElasticMq } from '../helpers/elasticmq.js';
import { emitEvent } from '../helpers/pipeline.js';
import type { Receiver } from '../helpers/receiver.js';
import { newCompany } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

let server: ElasticMq;
beforeAll(async () => {
  server = await startElasticMq({ storage: 'disk' });
}, 120_000);
afterAll(async () => {
  await server?.remove();
}, 60_000);

describe.each(['sqlite', 'kafka'] as const)('an SQS destination, %s streams', (streams) => {
  let gw: TestGateway;
  let receiver: Receiver;
  const { sink, closeSinks } = sinkPool((fifo?: boolean) => sqsSink(server.endpoint, fifo));

  beforeAll(async () => {
    ({ gw, receiver } = await startDestinationGateway(streams, '0,1s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s'));
  }, 120_000);
  afterAll(async () => {
    await closeSinks();
    await receiver?.close();
    await gw?.close();
  });

  it('gets the same events, ids and order as a webhook endpoint, signed, on a standard queue', async () => {
    await sameEventsAsWebhooks(gw, await sink(), receiver);
  }, 120_000);

  it('gets them on a FIFO queue in one group per endpoint, the event id as deduplication id', async () => {
    const target = await sink(true);
    await sameEventsAsWebhooks(gw, target, receiver);
    const messages = target.received.filter((m) => !m.id.startsWith('test_'));
    expect(messages.length).toBeGreaterThanOrEqual(20);
    for (const m of messages) expect(m.deduplicationId).toBe(m.id);
    expect(new Set(messages.map((m) => m.groupId)).size).toBe(1);
    expect(messages[0]!.groupId).toMatch(/^\d+:\d+$/);
  }, 120_000);

  it('puts each conversation in a FIFO message group of its own, the event id as deduplication id', async () => {
    const company = await newCompany(gw);
    const target = await sink(true);
    const endpoint = await brokerEndpoint(gw, company, target);
    const emit = (name: string, object: Record<string, unknown>) => emitEvent(gw.store, company, name, object);
    const events = [
      emit('message.create', { id: 1, conversation_id: 7 }),
      emit('message.create', { id: 2, conversation_id: 8 }),
      emit('conversation.update', { id: 7, state: 'closed' }),
      emit('message.create', { id: 3, conversation_id: 8 }),
      emit('message.create', { id: 4 }),
      emit('message.create', { id: 5, conversation_id: 7 }),
    ];
    const ids = events.map((e) => e.id);
    const ours = () => target.received.filter((m) => ids.includes(m.id));
    await eventually('the six events in the queue', () => ours().length >= 6, 60_000);
    const groupOf = new Map(ours().map((m) => [m.id, m.groupId]));
    expect(ids.map((id) => groupOf.get(id))).toEqual([
      'conversation-7',
      'conversation-8',
      'conversation-7',
      'conversation-8',
      `${company}:${endpoint.id}`,
      'conversation-7',
    ]);
    for (const m of ours()) expect(m.deduplicationId).toBe(m.id);
    // Each group in the order its events happened.
    const inGroup = (group: string) =>
      ours()
        .filter((m) => m.groupId === group)
        .map((m) => m.id);
    expect(inGroup('conversation-7')).toEqual([ids[0], ids[2], ids[5]]);
    expect(inGroup('conversation-8')).toEqual([ids[1], ids[3]]);
    expect(ours()).toHaveLength(6);
  }, 60_000);

  it('sends the test message on demand', async () => {
    await testMessage(gw, await sink());
  }, 60_000);

  it('holds its events while disabled and delivers them in order once enabled', async () => {
    await heldWhileDisabled(gw, await sink(true));
  }, 120_000);

  it('records a send SQS refuses as the attempt error, the access key masked', async () => {
    const company = await newCompany(gw);
    const target = await sink();
    const endpoint = await brokerEndpoint(gw, company, {
      ...target,
      settings: { ...target.settings, queue_url: `${server.endpoint}/000000000000/no-such-queue` },
    });
    emitEvents(gw, company, 1);
    await eventually('a failed attempt recorded', () => attemptsOf(gw, endpoint.id).length >= 1, 30_000);
    const [attempt] = attemptsOf(gw, endpoint.id);
    expect(attempt!.outcome).toBe('retry');
    expect(attempt!.error).toMatch(/^SQS: /);
    expect(attempt!.error).not.toContain('sink-secret-value');
    expect(attempt!.error).not.toContain('AKIDSINK');
    const disabled = await gw.request('PATCH', `/api/p2/companies/${company}/webhooks/${endpoint.id}`, {
      json: { active: false },
    });
    expect(disabled.status, disabled.text).toBe(200);
  }, 60_000);

  it('retries through a server outage on a FIFO queue: nothing lost, in order, no duplicate', async () => {
    const company = await newCompany(gw);
    const target = await sink(true);
    const endpoint = await brokerEndpoint(gw, company, target, {
      ordering: 'strict',
      retry_schedule: OUTAGE_RETRY_SCHEDULE,
    });
    const first = emitEvents(gw, company, 3);
    await eventually('the first events in the queue', () => eventIds(target.received).length >= 3, 60_000);
    await server.stop();
    const during = emitEvents(gw, company, 5);
    await eventually(
      'an attempt failed by the outage',
      () => attemptsOf(gw, endpoint.id).some((a) => a.outcome === 'retry' && a.error !== null),
      60_000,
    );
    const failed = attemptsOf(gw, endpoint.id).find((a) => a.error !== null)!;
    expect(failed.error).toMatch(/^SQS: /);
    expect(failed.error).not.toContain('sink-secret-value');
    await server.start();
    const ids = [...first, ...during].map((e) => e.id);
    await eventually('every event in the queue', () => eventIds(target.received).length >= ids.length, 90_000);
    // The FIFO queue deduplicates a resent event by its id: each event once, in order.
    expect(eventIds(target.received)).toEqual(ids);
  }, 180_000);
});
