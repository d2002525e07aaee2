// What the test/tracing/embedded-trace-*.test.ts files share: a gateway with every role in this process,
// a company with a bot-style channel and one webhook endpoint, the provider callback they post, and the
// traced setup: tracing exported over OTLP/HTTP JSON to a receiver in the test process.
import { loadConfig } from '../../src/config/config.js';
import { startTracing, type RunningTracing } from '../../src/tracing/sdk.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { callbackInfo, fixture } from '../helpers/callbacks.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

export const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
export const CALLER_SPAN = '00f067aa0ba902b7';
export const GATEWAY_ENV = {
  GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
  GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0,100ms',
  GATEWAY_WEBHOOK_RETRY_JITTER: '0',
};

export const isMessageCreate = (body: unknown) =>
  (body as { type?: string; event?: string }).type === 'message' && (body as { event?: string }).event === 'create';

/** A company with a bot-style channel and one webhook endpoint; answers what a callback needs. */
export async function setUp(gw: TestGateway, hooks: Receiver) {
  const companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Traced Co' } })).body.data
    .external_id as number;
  const channelId = (
    await gw.request('POST', `/p1/companies/${companyId}/channels`, {
      json: { provider: 'chat_b', token: '4242:traced-bot' },
    })
  ).body.data.external_id as number;
  const endpoint = (
    await gw.request('POST', `/api/p2/companies/${companyId}/webhooks`, { json: { url: hooks.url, active: true } })
  ).body.webhook as { id: number; secret: string };
  const { secrets } = await callbackInfo(gw, channelId);
  return { companyId, channelId, endpoint, secretToken: secrets.secret_token! };
}

export type Target = Awaited<ReturnType<typeof setUp>>;

export function postCallback(
  gw: TestGateway,
  channelId: number,
  secretToken: string,
  headers: Record<string, string> = {},
) {
  return gw.request('POST', `/callbacks/chat_b/${channelId}`, {
    token: null,
    body: fixture('bot/text'),
    headers: { 'content-type': 'application/json', 'x-bot-api-secret-token': secretToken, ...headers },
  });
}

/** The one span of `spans` that matches; throws with every span's ids when there are none or several. */
export const one = (spans: ReceivedSpan[], what: string, match: (span: ReceivedSpan) => boolean): ReceivedSpan => {
  const found = spans.filter(match);
  if (found.length !== 1)
    throw new Error(
      `expected one ${what}, found ${found.length}: ${JSON.stringify(spans.map((s) => [s.name, s.traceId, s.spanId, s.parentSpanId]))}`,
    );
  return found[0]!;
};

const OTEL_ENV_KEYS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_BSP_SCHEDULE_DELAY'];

export interface TracedGateway {
  otlp: OtlpReceiver;
  tracing: RunningTracing;
  gw: TestGateway;
  hooks: Receiver;
  target: Target;
  /** Closes the gateway, tracing, the webhook receiver and the OTLP receiver, and clears the OTEL_* variables. */
  close: () => Promise<void>;
}

/**
 * Tracing on (exporting every 50 ms), a gateway with trace fields in its log lines, and its target. The
 * first message.create attempt fails: its retry is a trace of its own, linked to the callback's.
 * Each file's beforeAll; on a failure part-way it closes what it started before throwing.
 */
export async function startTracedGateway(): Promise<TracedGateway> {
  let otlp: OtlpReceiver | undefined;
  let tracing: RunningTracing | undefined;
  let gw: TestGateway | undefined;
  let hooks: Receiver | undefined;
  const close = async () => {
    await gw?.close();
    await tracing?.shutdown();
    await hooks?.close();
    await otlp?.close();
    for (const key of OTEL_ENV_KEYS) delete process.env[key];
  };
  try {
    otlp = await startOtlpReceiver();
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    };
    Object.assign(process.env, env);
    tracing = (await startTracing(loadConfig(env).tracing, { role: 'all', version: 'test' }))!;
    let target: Target | undefined;
    let messageCreates = 0;
    const started: Receiver = await startReceiver(
      () => [target!.endpoint.secret],
      (n) =>
        isMessageCreate(started.received[n - 1]!.body) && (messageCreates += 1) === 1
          ? { status: 500 }
          : { status: 200 },
    );
    hooks = started;
    gw = await startTestGateway(GATEWAY_ENV, { traceFields: true });
    target = await setUp(gw, hooks);
    return { otlp, tracing, gw, hooks, target, close };
  } catch (error) {
    await close();
    throw error;
  }
}
