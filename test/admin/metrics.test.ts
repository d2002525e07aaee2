import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/streams/stream.js';
import { fixture } from '../helpers/callbacks.js';
import { emittedEvents } from '../helpers/events.js';
import { ADMIN_TOKEN, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { insertEndpoint, newSecret } from '../helpers/pipeline.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

const METRICS_TOKEN = 'metrics-token-of-the-tests-0123';

/** The sample lines of one metric family (`name{labels} value`), without HELP and TYPE. */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

async function scrape(
  gw: TestGateway,
  token: string | null = METRICS_TOKEN,
): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`${gw.baseUrl}/metrics`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

describe('GET /metrics', () => {
  let gw: TestGateway;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let gone: Awaited<ReturnType<typeof startReceiver>>;
  let channelId: number;
  let secretToken: string;

  beforeAll(async () => {
    gw = await startTestGateway(
      { ...TO_RECEIVERS, GATEWAY_METRICS_TOKEN: METRICS_TOKEN, GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0,1h' },
      { clock: systemClock },
    );
    const secret = newSecret();
    receiver = await startReceiver(() => [secret]);
    // Answers 500 to its first call (a retry is scheduled) and 410 to its second (it gets disabled).
    gone = await startReceiver(
      () => [secret],
      (n) => (n === 1 ? { status: 500 } : { status: 410 }),
    );
    const headers = { 'content-type': 'application/json', 'x-private-api-token': gw.token };
    const company = (await (
      await fetch(`${gw.baseUrl}/p1/companies`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Metrics Co' }),
      })
    ).json()) as {
      data: { external_id: number };
    };
    const companyId = company.data.external_id;
    const channel = (await (
      await fetch(`${gw.baseUrl}/p1/companies/${companyId}/channels`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ provider: 'chat_b', token: '123456:bot-token' }),
      })
    ).json()) as { data: { external_id: number } };
    channelId = channel.data.external_id;
    // The channel's auth.create goes out before the endpoints exist: only the callbacks' events reach them.
    await eventually('outbox relayed', () => gw.store.outbox.lag().pending === 0);
    insertEndpoint(gw.store, companyId, receiver.url, { secret });
    insertEndpoint(gw.store, companyId, gone.url, { secret, eventTypes: ['message.create'] });
    const info = await gw.admin('GET', `/admin/channels/${channelId}/callback`);
    secretToken = info.body.secrets.secret_token;
  });
  afterAll(async () => {
    await gw.close();
    await receiver.close();
    await gone.close();
  });

  it('needs GATEWAY_METRICS_TOKEN when it is set (the admin token does not open it)', async () => {
    const missing = await scrape(gw, null);
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.text).errors[0]).toMatchObject({
      code: 'unauthorized',
      detail: expect.stringContaining('GATEWAY_METRICS_TOKEN'),
    });
    expect((await scrape(gw, `${METRICS_TOKEN}x`)).status).toBe(401);
    expect((await scrape(gw, gw.token)).status).toBe(401);
    const ok = await scrape(gw);
    expect(ok.status).toBe(200);
    expect(ok.type).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('counts callbacks, requests by route template, attempts, retries, latency, lag and disabled endpoints', async () => {
    const post = (body: string, token: string) =>
      send(gw.baseUrl, 'POST', `/callbacks/chat_b/${channelId}`, {
        body,
        headers: { 'content-type': 'application/json', 'x-bot-api-secret-token': token },
      });
    expect((await post(fixture('bot/text'), secretToken)).status).toBe(200);
    expect((await post(fixture('bot/text'), secretToken)).status).toBe(200);
    expect((await post(fixture('bot/text'), `${secretToken}x`)).status).toBe(401);
    expect(
      (
        await send(gw.baseUrl, 'POST', `/callbacks/nobody/${channelId}`, {
          body: '{}',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await send(gw.baseUrl, 'POST', `/callbacks/chat_b/999999`, {
          body: '{}',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(404);

    // conversation.create and message.create to the healthy endpoint; message.create to the other: 500 (retry in 1 h).
    await eventually('three attempts recorded', async () => {
      const text = (await scrape(gw)).text;
      return (
        text.includes('gateway_webhook_attempts_total{outcome="delivered",trigger="auto"} 2') &&
        text.includes('gateway_webhook_attempts_total{outcome="retry",trigger="auto"} 1')
      );
    });
    // The events stream commits right after the attempt was published: lag 0 shortly after.
    await eventually('no lag', async () => !/gateway_stream_lag_messages\{[^}]*\} [1-9]/.test((await scrape(gw)).text));
    const { text } = await scrape(gw);
    expect(samples(text, 'gateway_callbacks_accepted_total')).toEqual([
      'gateway_callbacks_accepted_total{provider="chat_b",duplicate="false"} 1',
      'gateway_callbacks_accepted_total{provider="chat_b",duplicate="true"} 1',
    ]);
    expect(samples(text, 'gateway_callbacks_rejected_total')).toEqual([
      'gateway_callbacks_rejected_total{provider="chat_b",reason="unauthorized"} 1',
      'gateway_callbacks_rejected_total{provider="other",reason="not_found"} 1',
      'gateway_callbacks_rejected_total{provider="chat_b",reason="not_found"} 1',
    ]);
    expect(samples(text, 'gateway_webhook_attempts_total')).toEqual([
      'gateway_webhook_attempts_total{outcome="delivered",trigger="auto"} 2',
      'gateway_webhook_attempts_total{outcome="retry",trigger="auto"} 1',
    ]);
    expect(samples(text, 'gateway_webhook_retries_scheduled_total')).toEqual([
      'gateway_webhook_retries_scheduled_total 1',
    ]);
    expect(samples(text, 'gateway_webhook_delivery_latency_seconds_count')).toEqual([
      'gateway_webhook_delivery_latency_seconds_count{trigger="auto"} 2',
    ]);
    expect(samples(text, 'gateway_webhook_delivery_latency_seconds_bucket').at(-1)).toBe(
      'gateway_webhook_delivery_latency_seconds_bucket{le="+Inf",trigger="auto"} 2',
    );
    expect(
      samples(text, 'gateway_http_request_duration_seconds_count').filter((l) => l.includes('/callbacks/')),
    ).toEqual([
      'gateway_http_request_duration_seconds_count{method="POST",route="/callbacks/:provider/:channelId",status="200"} 2',
      'gateway_http_request_duration_seconds_count{method="POST",route="/callbacks/:provider/:channelId",status="401"} 1',
      'gateway_http_request_duration_seconds_count{method="POST",route="/callbacks/:provider/:channelId",status="404"} 2',
    ]);
    expect(samples(text, 'gateway_outbox_pending_rows')).toEqual(['gateway_outbox_pending_rows 0']);
    expect(samples(text, 'gateway_outbox_oldest_pending_age_seconds')).toEqual([
      'gateway_outbox_oldest_pending_age_seconds 0',
    ]);
    // Every event emitted so far was published, once.
    expect(samples(text, 'gateway_outbox_published_total')).toEqual([
      `gateway_outbox_published_total{stream="gateway.events"} ${emittedEvents(gw.store).length}`,
    ]);
    expect(samples(text, 'gateway_stream_lag_messages')).toEqual([
      'gateway_stream_lag_messages{stream="gateway.events",group="gateway-dispatcher"} 0',
      'gateway_stream_lag_messages{stream="gateway.retries",group="gateway-dispatcher"} 0',
      'gateway_stream_lag_messages{stream="gateway.replays",group="gateway-dispatcher"} 0',
      'gateway_stream_lag_messages{stream="gateway.outbound",group="gateway-sender"} 0',
      'gateway_stream_lag_messages{stream="gateway.attempts",group="gateway-core"} 0',
      'gateway_stream_lag_messages{stream="gateway.inbound",group="gateway-core"} 0',
    ]);
    expect(samples(text, 'gateway_webhook_endpoints_disabled')).toEqual(['gateway_webhook_endpoints_disabled 0']);
    // Process memory and event-loop lag (prom-client's default metrics).
    expect(samples(text, 'process_resident_memory_bytes')).toEqual([
      expect.stringMatching(/^process_resident_memory_bytes \d+$/),
    ]);
    expect(samples(text, 'nodejs_eventloop_lag_seconds')).toEqual([
      expect.stringMatching(/^nodejs_eventloop_lag_seconds [\d.e-]+$/),
    ]);
    // A route template, never a raw path: no channel id appears in a label.
    expect(text).not.toContain(`/callbacks/chat_b/${channelId}`);
  });

  it('reports an endpoint the gateway disabled (410 Gone)', async () => {
    const deliveryId = (
      gw.store.db.prepare("SELECT id FROM webhook_deliveries WHERE status = 'pending'").get() as { id: string }
    ).id;
    expect((await gw.admin('POST', `/admin/deliveries/${deliveryId}/replay`)).status).toBe(202);
    await eventually('disabled', async () => (await scrape(gw)).text.includes('gateway_webhook_endpoints_disabled 1'));
    // The healthy endpoint wants every event: it receives the webhook.disabled of the other one.
    await eventually('webhook.disabled delivered', async () =>
      (await scrape(gw)).text.includes('gateway_webhook_attempts_total{outcome="delivered",trigger="auto"} 3'),
    );
    const { text } = await scrape(gw);
    expect(samples(text, 'gateway_webhook_endpoint_state_changes_total').filter((l) => !l.endsWith(' 0'))).toEqual([
      'gateway_webhook_endpoint_state_changes_total{state="disabled",by="gateway"} 1',
    ]);
    expect(samples(text, 'gateway_webhook_attempts_total')).toEqual([
      'gateway_webhook_attempts_total{outcome="delivered",trigger="auto"} 3',
      'gateway_webhook_attempts_total{outcome="retry",trigger="auto"} 1',
      'gateway_webhook_attempts_total{outcome="gone",trigger="manual"} 1',
    ]);
    expect(samples(text, 'gateway_webhook_retries_scheduled_total')).toEqual([
      'gateway_webhook_retries_scheduled_total 1',
    ]);
  });
});

describe('GET /metrics without its own token', () => {
  it('takes the admin token when only GATEWAY_ADMIN_TOKEN is set', async () => {
    const gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    try {
      expect((await gw.request('GET', '/metrics', { token: null })).status).toBe(401);
      const ok = await gw.request('GET', '/metrics', {
        token: null,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('# TYPE gateway_callbacks_accepted_total counter');
    } finally {
      await gw.close();
    }
  });

  it('is open, like /healthz, when no token is configured', async () => {
    const gw = await startTestGateway();
    try {
      const ok = await gw.request('GET', '/metrics', { token: null });
      expect(ok.status).toBe(200);
      expect(samples(ok.text, 'gateway_outbox_pending_rows')).toEqual(['gateway_outbox_pending_rows 0']);
      expect(ok.text).toContain(
        '# HELP gateway_webhook_delivery_latency_seconds From the creation of an event to the 2xx answer of the endpoint that received it.',
      );
    } finally {
      await gw.close();
    }
  });
});

async function send(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> },
) {
  const response = await fetch(`${baseUrl}${path}`, { method, headers: options.headers, body: options.body });
  const text = await response.text();
  return { status: response.status, headers: {}, text, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}
