// One trace from a provider callback to the webhook answer, embedded mode (every role in this
// process), exported over OTLP/HTTP JSON to a receiver in the test process; with tracing off, none
// of it: no traceparent sent, no trace context stored, no trace ids logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningTracing } from '../../src/tracing/sdk.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { KIND, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';
import {
  CALLER_SPAN,
  CALLER_TRACE,
  GATEWAY_ENV,
  isMessageCreate,
  one,
  postCallback,
  setUp,
  startTracedGateway,
  type Target,
} from './embedded-trace-fixtures.js';

describe('tracing off (no OTLP endpoint)', () => {
  it('sends no traceparent, stores no trace context and logs no trace ids', async () => {
    let secret = '';
    const hooks = await startReceiver(() => [secret]);
    const gw = await startTestGateway(GATEWAY_ENV);
    try {
      const { channelId, endpoint, secretToken } = await setUp(gw, hooks);
      secret = endpoint.secret;
      expect(
        (await postCallback(gw, channelId, secretToken, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` }))
          .status,
      ).toBe(200);
      await eventually('the message.create webhook', () => hooks.received.some((r) => isMessageCreate(r.body)));
      for (const received of hooks.received) {
        expect(received.verifiedBy).toEqual([0]);
        expect(received.headers).not.toHaveProperty('traceparent');
      }
      const db = gw.gateway.store.db;
      expect(db.prepare('SELECT count(*) AS n FROM outbox WHERE traceparent IS NOT NULL').get()).toEqual({ n: 0 });
      expect(db.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE traceparent IS NOT NULL').get()).toEqual({
        n: 0,
      });
      expect(gw.logText()).toContain(`"path":"/callbacks/chat_b/${channelId}","status":200`);
      expect(gw.logText()).not.toContain('trace_id');
    } finally {
      await gw.close();
      await hooks.close();
    }
  });
});

describe('tracing on: one trace from the provider callback to the webhook answer', () => {
  let otlp: OtlpReceiver;
  let tracing: RunningTracing;
  let gw: TestGateway;
  let hooks: Receiver;
  let target: Target;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ otlp, tracing, gw, hooks, target, close } = await startTracedGateway());
  });

  afterAll(() => close?.());

  it('follows the callback through its transaction, the relay, the stream and the attempt; the receiver gets its traceparent', async () => {
    const answer = await postCallback(gw, target.channelId, target.secretToken, {
      traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
    });
    expect(answer.status).toBe(200);
    await eventually(
      'the retried message.create delivered',
      () => hooks.received.filter((r) => isMessageCreate(r.body)).length === 2,
      10_000,
    );
    await tracing.flush();
    const attempt = (n: number) => (s: ReceivedSpan) =>
      s.name === 'POST webhook' &&
      s.attributes['gateway.event.name'] === 'message.create' &&
      s.attributes['gateway.webhook.attempt'] === n;
    await eventually(
      'both attempts exported',
      () => otlp.spans.filter((s) => attempt(1)(s) || attempt(2)(s)).length === 2,
      10_000,
    );

    // The request: a SERVER span continuing the caller's trace.
    const trace = otlp.trace(CALLER_TRACE);
    const server = one(trace, 'callback request span', (s) => s.kind === KIND.server);
    expect(server).toMatchObject({
      name: 'POST /callbacks/:provider/:channelId',
      parentSpanId: CALLER_SPAN,
      status: 0,
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/callbacks/:provider/:channelId',
        'http.response.status_code': 200,
        'url.path': `/callbacks/chat_b/${target.channelId}`,
      },
      resource: { 'service.name': 'gateway', 'service.version': 'test', 'gateway.role': 'all' },
    });
    expect(server.attributes['gateway.request_id']).toBe(answer.headers['x-request-id']);

    // Its store transaction: a span of its own, linked both ways.
    const commit = one(
      otlp.spans,
      'transaction span linked to the request',
      (s) => s.name === 'store transaction' && s.links.some((l) => l.spanId === server.spanId),
    );
    expect(commit.traceId).not.toBe(CALLER_TRACE);
    expect(commit.parentSpanId).toBe('');
    expect(commit.attributes).toMatchObject({ 'db.system.name': 'sqlite' });
    expect(server.links).toContainEqual({ traceId: commit.traceId, spanId: commit.spanId, attributes: {} });
    // Transactions without a traced caller (background work alone) make no span.
    for (const transaction of otlp.spans.filter((s) => s.name === 'store transaction'))
      expect(transaction.links.length).toBeGreaterThan(0);

    // The relay's publish of each event the callback wrote, under the request.
    const sends = trace.filter((s) => s.name === 'send gateway.events');
    expect(sends.length).toBe(2); // the new conversation's event and the message's
    for (const send of sends)
      expect(send).toMatchObject({
        kind: KIND.producer,
        parentSpanId: server.spanId,
        attributes: {
          'messaging.system': 'sqlite',
          'messaging.destination.name': 'gateway.events',
          'messaging.batch.message_count': 1,
        },
      });

    // The first attempt, in the dispatcher's consume span of the job that publish carried.
    const first = one(trace, 'first attempt', attempt(1));
    const consume = one(trace, 'consume span of the first attempt', (s) => s.spanId === first.parentSpanId);
    expect(consume).toMatchObject({
      name: 'process gateway.events',
      kind: KIND.consumer,
      attributes: { 'messaging.consumer.group.name': 'gateway-dispatcher', 'messaging.operation.type': 'process' },
    });
    const send = one(sends, 'publish of the message event', (s) => s.spanId === consume.parentSpanId);
    expect(first).toMatchObject({
      kind: KIND.client,
      status: 2,
      attributes: {
        'http.request.method': 'POST',
        'http.response.status_code': 500,
        'error.type': '500',
        'url.full': hooks.url,
        'server.address': '127.0.0.1',
        'gateway.webhook.endpoint.id': target.endpoint.id,
        'gateway.webhook.trigger': 'auto',
        'gateway.webhook.step': 1,
        'gateway.webhook.outcome': 'retry',
        'gateway.company.id': target.companyId,
      },
    });
    expect(first.attributes['gateway.webhook.duration_ms']).toEqual(expect.any(Number));
    const [firstReceived, retryReceived] = hooks.received.filter((r) => isMessageCreate(r.body));
    expect(firstReceived!.headers.traceparent).toBe(`00-${CALLER_TRACE}-${first.spanId}-01`);
    expect(firstReceived!.verifiedBy).toEqual([0]);

    // The retry: a new trace, started by the scheduler's publish, linked to the delivery's publish.
    const retry = one(otlp.spans, 'second attempt', attempt(2));
    expect(retry.traceId).not.toBe(CALLER_TRACE);
    expect(retry).toMatchObject({
      status: 0,
      attributes: {
        'http.response.status_code': 200,
        'gateway.webhook.outcome': 'delivered',
        'gateway.webhook.step': 2,
      },
    });
    const retryTrace = otlp.trace(retry.traceId);
    const retryConsume = one(retryTrace, 'consume span of the retry', (s) => s.spanId === retry.parentSpanId);
    expect(retryConsume.name).toBe('process gateway.retries');
    const retryPublish = one(retryTrace, 'publish of the retry', (s) => s.spanId === retryConsume.parentSpanId);
    expect(retryPublish).toMatchObject({ name: 'send gateway.retries', kind: KIND.producer, parentSpanId: '' });
    expect(retryPublish.links).toEqual([
      { traceId: CALLER_TRACE, spanId: send.spanId, attributes: { 'gateway.link.reason': 'delivery created' } },
    ]);
    expect(retryReceived!.headers.traceparent).toBe(`00-${retry.traceId}-${retry.spanId}-01`);
    expect(retryReceived!.verifiedBy).toEqual([0]);

    // Logs join traces: the lines written in the request carry its ids.
    const lines = gw
      .logText()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requestLine = lines.find(
      (line) => line.msg === 'request' && line.path === `/callbacks/chat_b/${target.channelId}`,
    )!;
    expect(requestLine).toMatchObject({ trace_id: CALLER_TRACE, span_id: server.spanId });
    // Nothing but its own fields and the callback's outcome: no line carries the fields of lines written before it.
    expect(Object.keys(requestLine).sort()).toEqual([
      'channel',
      'duplicate',
      'events',
      'family',
      'level',
      'messages',
      'method',
      'ms',
      'msg',
      'path',
      'reqId',
      'service',
      'span_id',
      'status',
      'time',
      'trace_id',
    ]);
    expect(lines.filter((line) => 'schema_version' in line).map((line) => line.msg)).toEqual(['store ready']);
  });
});
