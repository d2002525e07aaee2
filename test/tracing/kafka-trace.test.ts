// One trace across processes in Kafka mode: a core (in this process) and a separate
// `gateway serve --role worker` process, both exporting to the same OTLP receiver.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { systemClock } from '../../src/streams/stream.js';
import { startTracing, type RunningTracing } from '../../src/tracing/sdk.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { fixture } from '../helpers/callbacks.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';
const kafkaEnv = {
  GATEWAY_KAFKA_BROKERS: inject('kafkaBrokers'),
  GATEWAY_KAFKA_NAMESPACE: `otel-${randomUUID().slice(0, 8)}.`,
};

let otlp: OtlpReceiver;
let tracing: RunningTracing;
let core: TestGateway;
let fake: FakeProvider;
let worker: GatewayProcess;
const workerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-otel-worker-'));

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  fake = await new FakeProvider().start();
  const otelEnv = {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
  };
  Object.assign(process.env, otelEnv);
  tracing = (await startTracing(loadConfig(otelEnv).tracing, { role: 'core', version: 'test' }))!;
  core = await startTestGateway(
    { ...TO_RECEIVERS, ...kafkaEnv, ...fake.env() },
    { clock: systemClock, role: 'core', streams: 'kafka' },
  );
  worker = await startGatewayProcess('worker', {
    ...kafkaEnv,
    ...fake.env(),
    ...otelEnv,
    GATEWAY_DATA_DIR: workerDir,
    GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    GATEWAY_LOG_LEVEL: 'debug',
  });
  const joined = (stream: string) =>
    worker
      .output()
      .split('\n')
      .some(
        (line) =>
          line.includes('consumer joined its group') &&
          line.includes(`"stream":"${stream}"`) &&
          !line.includes('"partitions":[]'),
      );
  await eventually(
    'the worker consuming gateway.events and gateway.outbound',
    () => joined('gateway.events') && joined('gateway.outbound'),
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await core?.close();
  await tracing?.shutdown();
  await fake?.close();
  await otlp?.close();
  for (const key of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_BSP_SCHEDULE_DELAY'])
    delete process.env[key];
  fs.rmSync(workerDir, { recursive: true, force: true });
}, 60_000);

function one(spans: ReceivedSpan[], what: string, match: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(match);
  if (found.length !== 1)
    throw new Error(
      `expected one ${what}, found ${found.length}: ${JSON.stringify(spans.map((s) => [s.name, s.resource['gateway.role'], s.spanId, s.parentSpanId]))}`,
    );
  return found[0]!;
}

async function api(method: string, urlPath: string, json: unknown): Promise<any> {
  const response = await fetch(`${core.baseUrl}${urlPath}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-private-api-token': core.token },
    body: JSON.stringify(json),
  });
  return response.json();
}

describe('Kafka mode: core and worker processes in one trace', () => {
  it('carries a callback handled by the core and delivered by the worker in one trace, to the receiver', async () => {
    let secret = '';
    const hooks = await startReceiver(() => [secret]);
    try {
      const companyId = (await api('POST', '/p1/companies', { name: 'Kafka Traced' })).data.external_id as number;
      const channelId = (
        await api('POST', `/p1/companies/${companyId}/channels`, { provider: 'chat_b', token: '4242:kafka-traced' })
      ).data.external_id as number;
      const endpoint = (await api('POST', `/api/p2/companies/${companyId}/webhooks`, { url: hooks.url, active: true }))
        .webhook as { id: number; secret: string };
      secret = endpoint.secret;
      const secretToken = (await core.admin('GET', `/admin/channels/${channelId}/callback`)).body.secrets
        .secret_token as string;
      const answer = await fetch(`${core.baseUrl}/callbacks/chat_b/${channelId}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-bot-api-secret-token': secretToken,
          traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
        },
        body: fixture('bot/text'),
      });
      expect(answer.status).toBe(200);
      const isMessageCreate = (body: any) => body.type === 'message' && body.event === 'create';
      await eventually('the message.create webhook', () => hooks.received.some((r) => isMessageCreate(r.body)), 60_000);
      const attemptOf = (s: ReceivedSpan) =>
        s.name === 'POST webhook' && s.attributes['gateway.event.name'] === 'message.create';
      await tracing.flush();
      await eventually('the worker exported the attempt', () => otlp.spans.some(attemptOf), 20_000);

      const trace = otlp.trace(CALLER_TRACE);
      const server = one(trace, 'callback request', (s) => s.kind === KIND.server);
      expect(server).toMatchObject({
        name: 'POST /callbacks/:provider/:channelId',
        parentSpanId: CALLER_SPAN,
        resource: { 'gateway.role': 'core' },
      });
      const attempt = one(trace, 'message.create attempt', attemptOf);
      expect(attempt).toMatchObject({
        kind: KIND.client,
        resource: { 'gateway.role': 'worker' },
        attributes: {
          'http.response.status_code': 200,
          'gateway.webhook.attempt': 1,
          'gateway.webhook.endpoint.id': endpoint.id,
        },
      });
      const consume = one(trace, 'worker consume', (s) => s.spanId === attempt.parentSpanId);
      expect(consume).toMatchObject({
        name: 'process gateway.events',
        kind: KIND.consumer,
        resource: { 'gateway.role': 'worker' },
        attributes: { 'messaging.system': 'kafka' },
      });
      const publish = one(trace, 'core publish', (s) => s.spanId === consume.parentSpanId);
      expect(publish).toMatchObject({
        name: 'send gateway.events',
        kind: KIND.producer,
        parentSpanId: server.spanId,
        resource: { 'gateway.role': 'core' },
        attributes: { 'messaging.system': 'kafka' },
      });
      const received = hooks.received.find((r) => isMessageCreate(r.body))!;
      expect(received.headers.traceparent).toBe(`00-${CALLER_TRACE}-${attempt.spanId}-01`);
      expect(received.verifiedBy).toEqual([0]);

      // The attempt's record goes back to the core on gateway.attempts: recorded in a run linked to it.
      await tracing.flush();
      await eventually(
        'the core recorded the attempt in a linked span',
        () =>
          otlp.spans.some(
            (s) => s.name === 'process gateway.attempts' && s.links.some((l) => l.spanId === attempt.spanId),
          ),
        20_000,
      );
      // The worker's log line of the attempt carries the attempt's ids.
      const attemptLines = worker
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"webhook attempt"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(attemptLines.find((line) => line.span_id === attempt.spanId)).toMatchObject({
        trace_id: CALLER_TRACE,
        status_code: 200,
        attempt: 1,
      });
    } finally {
      await hooks.close();
    }
  }, 120_000);

  it('traces a send from the API request to the provider call in the worker and its outcome back in the core', async () => {
    const companyId = (await api('POST', '/p1/companies', { name: 'Kafka Sender' })).data.external_id as number;
    const channelId = (
      await api('POST', `/p1/companies/${companyId}/channels`, { provider: 'chat_b', token: '4242:kafka-sender' })
    ).data.external_id as number;
    const store = core.store;
    const conversation = store.transaction(() => {
      const { contact } = store.contacts.findOrCreate({
        companyId,
        channelId,
        externalId: '31337',
        externalPublicId: '@kafka',
        name: 'Kafka',
        phone: null,
      });
      return store.conversations.findOrCreate(companyId, channelId, contact.id).conversation;
    });
    fake.script('bot', { status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } });
    const sent = await api('POST', `/api/p2/conversations/${conversation.id}/messages`, {
      company_id: companyId,
      text: 'traced send',
    });
    const messageId = sent.message.id as number;
    await eventually(
      'the core recorded the send',
      () => store.messages.findById(messageId)!.external_id !== null,
      60_000,
    );
    const tryOf = (n: number) => (s: ReceivedSpan) =>
      s.name === 'provider send' &&
      s.attributes['gateway.message.id'] === messageId &&
      s.attributes['gateway.send.try'] === n;
    await tracing.flush();
    await eventually('both tries exported', () => otlp.spans.some(tryOf(1)) && otlp.spans.some(tryOf(2)), 20_000);

    const first = one(otlp.spans, 'first try', tryOf(1));
    const second = one(otlp.spans, 'second try', tryOf(2));
    expect(first).toMatchObject({
      kind: KIND.client,
      status: 2,
      resource: { 'gateway.role': 'worker' },
      attributes: { 'gateway.provider': 'chat_b', 'gateway.send.result': 'failed', 'gateway.channel.id': channelId },
    });
    expect(second).toMatchObject({
      traceId: first.traceId,
      parentSpanId: first.parentSpanId,
      status: 0,
      attributes: { 'gateway.send.result': 'sent' },
    });
    expect(second.links).toEqual([
      { traceId: first.traceId, spanId: first.spanId, attributes: { 'gateway.link.reason': 'first try' } },
    ]);
    const trace = otlp.trace(first.traceId);
    const consume = one(trace, 'worker consume', (s) => s.spanId === first.parentSpanId);
    expect(consume).toMatchObject({ name: 'process gateway.outbound', resource: { 'gateway.role': 'worker' } });
    const publish = one(trace, 'core publish', (s) => s.spanId === consume.parentSpanId);
    expect(publish.name).toBe('send gateway.outbound');
    const request = one(trace, 'API request', (s) => s.spanId === publish.parentSpanId);
    expect(request).toMatchObject({
      name: 'POST /api/p2/conversations/:id/messages',
      kind: KIND.server,
      resource: { 'gateway.role': 'core' },
    });
    // The outcome comes back on gateway.inbound, applied by the core in the same trace.
    await eventually(
      'the core applied the outcome in the trace',
      () =>
        otlp
          .trace(first.traceId)
          .some((s) => s.name === 'process gateway.inbound' && s.resource['gateway.role'] === 'core'),
      20_000,
    );
  }, 120_000);
});
