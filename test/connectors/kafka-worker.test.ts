// Sending in Kafka mode: a core gateway (store, API, relay, inbound applier) and a separate
// `gateway serve --role worker` process without a store, which calls the provider.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { systemClock } from '../../src/streams/stream.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/wait.js';

const BIN = path.resolve('bin/gateway.js');
const kafkaEnv = {
  GATEWAY_KAFKA_BROKERS: inject('kafkaBrokers'),
  GATEWAY_KAFKA_NAMESPACE: `send-${randomUUID().slice(0, 8)}.`,
};

let core: TestGateway;
let fake: FakeProvider;
let worker: ChildProcess;
let workerLog = '';
const workerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-send-worker-'));

beforeAll(async () => {
  fake = await new FakeProvider().start();
  core = await startTestGateway(
    { ...TO_RECEIVERS, ...kafkaEnv },
    { clock: systemClock, role: 'core', streams: 'kafka' },
  );
  worker = spawn(process.execPath, [BIN, 'serve', '--role', 'worker'], {
    env: {
      ...process.env,
      ...kafkaEnv,
      ...fake.env(),
      GATEWAY_DATA_DIR: workerDir,
      GATEWAY_LOG_LEVEL: 'debug',
      GATEWAY_PROVIDER_RETRY_SCHEDULE: '200ms',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout!.on('data', (chunk: Buffer) => (workerLog += chunk.toString()));
  worker.stderr!.on('data', (chunk: Buffer) => (workerLog += chunk.toString()));
  await eventually(
    'the worker consuming gateway.outbound',
    () => workerLog.includes('consumer joined its group') && workerLog.includes('"stream":"gateway.outbound"'),
    60_000,
  );
}, 120_000);

afterAll(async () => {
  if (worker?.exitCode === null) {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
  await core?.close();
  await fake?.close();
  fs.rmSync(workerDir, { recursive: true, force: true });
}, 60_000);

describe('Kafka mode: the sender runs in a worker process without a store', () => {
  it('sends through the worker; the outcome comes back on gateway.inbound and the core records it', async () => {
    const api = (method: string, p: string, json: unknown) =>
      fetch(`${core.baseUrl}${p}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-private-api-token': core.token },
        body: JSON.stringify(json),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const company = (await api('POST', '/p1/companies', { name: 'Kafka Send Co' })).body.data.external_id;
    const channel = (
      await api('POST', `/p1/companies/${company}/channels`, { provider: 'chat_b', token: '4242:kafka-bot-token' })
    ).body.data.external_id;
    const store = core.store;
    const conversation = store.transaction(() => {
      const { contact } = store.contacts.findOrCreate({
        companyId: company,
        channelId: channel,
        externalId: '31337',
        externalPublicId: '@kafka',
        name: 'Kafka',
        phone: null,
      });
      return store.conversations.findOrCreate(company, channel, contact.id).conversation;
    });
    fake.script('bot', { status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } });
    const sent = await api('POST', `/api/p2/conversations/${conversation.id}/messages`, {
      company_id: company,
      text: 'via Kafka',
    });
    expect(sent.status).toBe(201);
    const id = sent.body.message.id as number;
    await eventually('the core recorded the send', () => store.messages.findById(id)!.external_id !== null, 60_000);
    expect(store.messages.findById(id)!.external_id).toMatch(/^31337:\d+$/);
    expect(fake.callsOf('bot', '/sendMessage').map((c) => c.body)).toEqual([
      { chat_id: '31337', text: 'via Kafka' },
      { chat_id: '31337', text: 'via Kafka' },
    ]);
    await eventually('the worker logs the send', () => workerLog.includes('"msg":"message sent"'), 10_000);
    expect(workerLog).not.toContain('kafka-bot-token');
  }, 90_000);
});
