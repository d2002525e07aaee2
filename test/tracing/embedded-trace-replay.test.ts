// A manual replay's trace, embedded mode (every role in this process), exported over OTLP/HTTP JSON to
// a receiver in the test process: published under the admin request, linked to the delivery it replays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningTracing } from '../../src/tracing/sdk.js';
import { ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { KIND, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { type Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';
import {
  CALLER_SPAN,
  CALLER_TRACE,
  isMessageCreate,
  one,
  postCallback,
  startTracedGateway,
} from './embedded-trace-fixtures.js';

describe('tracing on: one trace from the provider callback to the webhook answer', () => {
  let otlp: OtlpReceiver;
  let tracing: RunningTracing;
  let gw: TestGateway;
  let hooks: Receiver;
  let close: () => Promise<void>;

  // The delivery to replay: the caller's traced callback, its message.create failed once and its retry
  // delivered, so the replay is the third message.create the receiver gets.
  beforeAll(async () => {
    const traced = await startTracedGateway();
    ({ otlp, tracing, gw, hooks, close } = traced);
    const { channelId, secretToken } = traced.target;
    const answer = await postCallback(gw, channelId, secretToken, {
      traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
    });
    expect(answer.status).toBe(200);
    await eventually(
      'the retried message.create delivered',
      () => hooks.received.filter((r) => isMessageCreate(r.body)).length === 2,
      10_000,
    );
  });

  afterAll(() => close?.());

  it('publishes a manual replay under the admin request, linked to the delivery it replays', async () => {
    const delivery = gw.gateway.store.db
      .prepare("SELECT id, traceparent FROM webhook_deliveries WHERE event_name = 'message.create'")
      .get() as { id: string; traceparent: string };
    const sendSpanId = delivery.traceparent.split('-')[2];
    const replayed = await gw.request('POST', `/admin/deliveries/${delivery.id}/replay`, {
      token: null,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(replayed.status).toBe(202);
    await eventually(
      'the replay delivered',
      () => hooks.received.filter((r) => isMessageCreate(r.body)).length === 3,
      10_000,
    );
    await tracing.flush();
    const manual = (s: ReceivedSpan) =>
      s.name === 'POST webhook' && s.attributes['gateway.webhook.trigger'] === 'manual';
    await eventually('the manual attempt exported', () => otlp.spans.some(manual), 10_000);
    const attempt = one(otlp.spans, 'manual attempt', manual);
    const trace = otlp.trace(attempt.traceId);
    const request = one(trace, 'admin request', (s) => s.kind === KIND.server);
    expect(request.name).toBe('POST /admin/deliveries/:deliveryId/replay');
    const publish = one(trace, 'replay publish', (s) => s.name === 'send gateway.replays');
    expect(publish.parentSpanId).toBe(request.spanId);
    expect(publish.links).toEqual([
      { traceId: CALLER_TRACE, spanId: sendSpanId, attributes: { 'gateway.link.reason': 'delivery created' } },
    ]);
    expect(one(trace, 'replay consume', (s) => s.spanId === attempt.parentSpanId)).toMatchObject({
      name: 'process gateway.replays',
      parentSpanId: publish.spanId,
    });
    expect(hooks.received.filter((r) => isMessageCreate(r.body))[2]!.headers.traceparent).toBe(
      `00-${attempt.traceId}-${attempt.spanId}-01`,
    );
  });
});
