// What every broker destination must show end to end (issue 49 item 1), against a real gateway and a
// real broker: the same events, ids and order as a webhook endpoint of the same company; signed
// headers a stock Standard Webhooks verifier accepts; the attempt log; the test message; and an
// endpoint disabled then enabled again holding its events, then delivering them in order.
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import type { EventRecord } from '../../src/streams/catalog.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from './gateway.js';
import type { BrokerSink, SinkMessage } from './broker-sinks.js';
import { emitEvent } from './pipeline.js';
import { startReceiver, type Receiver } from './receiver.js';
import { newCompany } from './seed.js';
import { eventually } from './wait.js';

export const hooksPath = (company: number) => `/api/p2/companies/${company}/webhooks`;

/**
 * The `retry_schedule` of an endpoint whose broker a test stops and starts again: 20 attempts over
 * about 90 s. A restart under load outlasts a schedule of 20 s: ElasticMQ took 21 s to stop (an
 * open request holds its shutdown) and 29 s to start with three test files running.
 */
export const OUTAGE_RETRY_SCHEDULE = [1, 2, 3, ...Array<number>(16).fill(5)];

/**
 * The gateway of a destination suite, in `streams` mode, retrying deliveries on `retrySchedule`
 * without jitter, and a webhook receiver beside it.
 */
export async function startDestinationGateway(
  streams: 'sqlite' | 'kafka',
  retrySchedule: string,
): Promise<{ gw: TestGateway; receiver: Receiver }> {
  const gw = await startTestGateway(
    { ...TO_RECEIVERS, GATEWAY_WEBHOOK_RETRY_SCHEDULE: retrySchedule, GATEWAY_WEBHOOK_RETRY_JITTER: '0' },
    { streams },
  );
  try {
    return { gw, receiver: await startReceiver(() => []) };
  } catch (error) {
    await gw.close();
    throw error;
  }
}

/** Makes a suite's sinks with `make` and closes every one it made. */
export function sinkPool<A extends unknown[], S extends BrokerSink>(
  make: (...args: A) => Promise<S>,
): { sink(...args: A): Promise<S>; closeSinks(): Promise<void> } {
  const made: S[] = [];
  return {
    async sink(...args) {
      const sink = await make(...args);
      made.push(sink);
      return sink;
    },
    async closeSinks() {
      for (const sink of made) await sink.close();
    },
  };
}

/** Creates the broker endpoint of `sink`, active; answers its id and signing secret. */
export async function brokerEndpoint(
  gw: TestGateway,
  company: number,
  sink: BrokerSink,
  extra: Record<string, unknown> = {},
): Promise<{ id: number; secret: string }> {
  const res = await gw.request('POST', hooksPath(company), {
    json: { type: sink.type, [sink.type]: sink.settings, active: true, ...extra },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.webhook.id as number, secret: res.body.webhook.secret as string };
}

/**
 * The ids of the message events the sink holds, in its order: not the test messages, nor the
 * endpoint's own `webhook.enabled`, which it receives too.
 */
export const eventIds = (messages: readonly SinkMessage[]) =>
  messages.filter((m) => !m.id.startsWith('test_') && m.body.includes('"type":"message"')).map((m) => m.id);

/** Emits `count` events one after the other, as a conversation's callbacks would. */
export function emitEvents(gw: TestGateway, company: number, count: number): EventRecord[] {
  return Array.from({ length: count }, (_, n) =>
    emitEvent(gw.store, company, 'message.create', { id: n + 1, text: `m${n}` }),
  );
}

/** Every message verifies with the endpoint's secret and carries the event's id where consumers look for it. */
export function expectSigned(sink: BrokerSink, secret: string, messages: readonly SinkMessage[]): void {
  const verifier = new Webhook(secret);
  for (const message of messages) {
    expect(() => verifier.verify(message.body, message.headers)).not.toThrow();
    expect(message.contentType).toBe('application/json');
    if (sink.type === 'rabbitmq') expect(message.messageId).toBe(message.id);
  }
}

/** The endpoint's attempt log, in the order of its deliveries, then of their attempts. */
export const attemptLogOf = (gw: TestGateway, endpointId: number) =>
  gw.store.db
    .prepare(
      `SELECT a.status_code, a.error, a.outcome, d.event_id FROM webhook_attempts a
       JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = ? ORDER BY d.seq, a.number`,
    )
    .all(endpointId) as { status_code: number | null; error: string | null; outcome: string; event_id: string }[];

/** The outcome and error of each attempt of the endpoint, in the order of its attempt log. */
export const attemptsOf = (gw: TestGateway, endpointId: number): { error: string | null; outcome: string }[] =>
  attemptLogOf(gw, endpointId).map(({ error, outcome }) => ({ error, outcome }));

/**
 * A webhook endpoint and a broker endpoint of one company get the same events with the same ids in
 * the order they happened; each broker message is signed and keyed by its endpoint; every attempt is
 * in the attempt log as delivered, with no status code.
 */
export async function sameEventsAsWebhooks(gw: TestGateway, sink: BrokerSink, receiver: Receiver): Promise<void> {
  const company = await newCompany(gw);
  const hook = await gw.request('POST', hooksPath(company), { json: { url: receiver.url, active: true } });
  expect(hook.status, hook.text).toBe(201);
  const broker = await brokerEndpoint(gw, company, sink);
  const events = emitEvents(gw, company, 20);
  const ids = events.map((e) => e.id);
  await eventually('20 events on the broker', () => eventIds(sink.received).length >= 20, 60_000);
  await eventually('20 webhooks', () => receiver.received.filter((r) => ids.includes(r.id)).length >= 20, 60_000);
  expect(eventIds(sink.received)).toEqual(ids);
  expect(receiver.received.filter((r) => ids.includes(r.id)).map((r) => r.id)).toEqual(ids);
  const messages = sink.received.filter((m) => ids.includes(m.id));
  expectSigned(sink, broker.secret, messages);
  expect(messages.map((m) => JSON.parse(m.body) as unknown)).toEqual(events.map((e) => e.body));
  if (sink.type === 'kafka') {
    expect(new Set(messages.map((m) => m.key))).toEqual(new Set([`${company}:${broker.id}`]));
    expect(new Set(messages.map((m) => m.partition)).size).toBe(1);
  }
  await eventually('20 attempts recorded', () => attemptLogOf(gw, broker.id).length >= 20);
  expect(attemptLogOf(gw, broker.id)).toEqual(
    ids.map((id) => ({ status_code: null, error: null, outcome: 'delivered', event_id: id })),
  );
}

/**
 * A credential of the endpoint's settings appears in none of: its attempt rows, the endpoint's
 * answers (one and the list), the admin API's deliveries and delivery, and the daemon's log. Answers
 * the text of the API answers, for the caller to find the attempt's error in.
 */
export async function expectSecretNowhere(
  gw: TestGateway,
  company: number,
  endpointId: number,
  secrets: string[],
): Promise<string> {
  const answers = [
    await gw.request('GET', `${hooksPath(company)}/${endpointId}`),
    await gw.request('GET', hooksPath(company)),
    await gw.admin('GET', `/admin/deliveries?company_id=${company}&endpoint_id=${endpointId}&limit=200`),
  ];
  const deliveries = answers[2]!.body.deliveries as { id: string }[];
  expect(deliveries.length).toBeGreaterThan(0);
  for (const delivery of deliveries) answers.push(await gw.admin('GET', `/admin/deliveries/${delivery.id}`));
  for (const answer of answers) expect(answer.status).toBe(200);
  const apiText = JSON.stringify(answers.map((a) => a.body));
  for (const text of [apiText, JSON.stringify(attemptsOf(gw, endpointId)), gw.logText()])
    for (const secret of secrets) expect(text).not.toContain(secret);
  return apiText;
}

/** The test message on demand: published, confirmed, answered as a success with its id. */
export async function testMessage(gw: TestGateway, sink: BrokerSink): Promise<void> {
  const company = await newCompany(gw);
  const broker = await brokerEndpoint(gw, company, sink);
  const res = await gw.request('POST', `${hooksPath(company)}/${broker.id}/test`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.test).toMatchObject({ success: true, status_code: null, error: null, response_body: null });
  const id = res.body.test.webhook_id as string;
  await eventually('the test message on the broker', () => sink.received.some((m) => m.id === id), 30_000);
  const message = sink.received.find((m) => m.id === id)!;
  expect(JSON.parse(message.body)).toEqual({ source: 'gateway', operation: 'test' });
  expectSigned(sink, broker.secret, [message]);
}

/**
 * Disabled, the endpoint holds its events; enabled again (after its test message went through), it
 * delivers them in the order they happened, after those it delivered before.
 */
export async function heldWhileDisabled(gw: TestGateway, sink: BrokerSink): Promise<void> {
  const company = await newCompany(gw);
  const broker = await brokerEndpoint(gw, company, sink);
  const before = emitEvents(gw, company, 3);
  await eventually('the first events on the broker', () => eventIds(sink.received).length >= 3, 60_000);
  const disabled = await gw.request('PATCH', `${hooksPath(company)}/${broker.id}`, { json: { active: false } });
  expect(disabled.status, disabled.text).toBe(200);
  const held = emitEvents(gw, company, 5);
  const heldIds = held.map((e) => e.id);
  await eventually('5 deliveries held', () => heldCount(gw, broker.id, heldIds) === 5);
  expect(eventIds(sink.received)).toEqual(before.map((e) => e.id));
  const enabled = await gw.request('PATCH', `${hooksPath(company)}/${broker.id}`, { json: { active: true } });
  expect(enabled.status, enabled.text).toBe(200);
  await eventually('the held events on the broker', () => eventIds(sink.received).length >= 8, 60_000);
  expect(eventIds(sink.received)).toEqual([...before, ...held].map((e) => e.id));
}

/** Deliveries of these events to the endpoint that wait in the held table. */
function heldCount(gw: TestGateway, endpointId: number, eventIds: string[]): number {
  const rows = gw.store.db
    .prepare(
      `SELECT event_id FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending' AND held_reason IS NOT NULL`,
    )
    .all(endpointId) as { event_id: string }[];
  return rows.filter((r) => eventIds.includes(r.event_id)).length;
}
