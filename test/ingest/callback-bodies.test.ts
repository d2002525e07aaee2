// How callback bodies are read: bytes that are not valid UTF-8 refused before any signature check, bodies
// sent in chunks read whole, past the limit storing nothing. Through HTTP alone (stored nothing: the
// v2 lists; emitted nothing: the company's webhooks), so it runs against a cluster too. A body cut
// short is in test/http/limits.test.ts: knowing when a core is done with it takes the core's metrics.
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { cloudBody, createCallbackChannels, postBytes } from '../helpers/callbacks.js';
import { observeCompanyEvents, type CompanyEvents } from '../helpers/company-events.js';
import { messagingState } from '../helpers/company-messages.js';

let gw: TestGateway;
let events: CompanyEvents;
let companyId: number;
let botChannel: number;
let botSecret: string;
let cloudChannel: number;
let appSecret: string;
let connectorChannel: number;
let connectorSecret: string;

beforeAll(async () => {
  gw = await startTestGateway(TO_RECEIVERS);
  ({ companyId, botChannel, botSecret, cloudChannel, appSecret, connectorChannel, connectorSecret } =
    await createCallbackChannels(gw, 'Bodies Co'));
  events = await observeCompanyEvents(gw, companyId);
});
afterAll(async () => {
  await gw.close();
  await events.close();
});

/** Every conversation and message of the company, and how many events it emitted: unchanged when a callback stored nothing. */
async function snapshot() {
  return { start: await events.count(), state: await messagingState(gw, companyId) };
}
async function expectNothingStored({ start, state }: Awaited<ReturnType<typeof snapshot>>) {
  expect(await messagingState(gw, companyId)).toEqual(state);
  expect(await events.since(start)).toEqual([]);
}
let seq = 0;
const nextId = () => `review-${++seq}`;

function botBody(message: Record<string, unknown>, key = 'message'): string {
  return JSON.stringify({
    update_id: 900000 + ++seq,
    [key]: { message_id: seq, chat: { id: 555, type: 'private', first_name: 'Ivo' }, date: 1749416383, ...message },
  });
}

describe('bodies that are not valid UTF-8', () => {
  const invalid = (text: string) => {
    const [before, after] = text.split('MARK') as [string, string];
    return Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xfe]), Buffer.from(after)]);
  };

  it('are refused with 400 before a signature is checked (cloud-style)', async () => {
    const before = await snapshot();
    const bytes = invalid(
      cloudBody([
        {
          id: nextId(),
          from: '4915112345678',
          timestamp: '1749416450',
          type: 'text',
          text: { body: 'bad MARK bytes' },
        },
      ]),
    );
    const signature = `sha256=${createHmac('sha256', appSecret).update(bytes).digest('hex')}`;
    const res = await postBytes(gw, `/callbacks/chat_a_business/${cloudChannel}`, bytes, {
      'content-type': 'application/json',
      'x-hub-signature-256': signature,
    });
    expectErrorShape(res, 400, 'bad_request');
    await expectNothingStored(before);
  });

  it('are refused with 400 (connector: the library would verify the lossy text, not the bytes)', async () => {
    const before = await snapshot();
    const bytes = invalid(
      JSON.stringify({
        type: 'message',
        id: nextId(),
        chat: { id: 'c-1' },
        timestamp: Math.floor(Date.now() / 1000),
        text: 'bad MARK bytes',
      }),
    );
    const id = `msg_${randomUUID()}`;
    const at = new Date();
    const headers = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      // Signed over U+FFFD where the bytes are invalid: what a lenient decoding makes of them.
      'webhook-signature': new Webhook(connectorSecret).sign(id, at, bytes.toString('utf8')),
    };
    expectErrorShape(await postBytes(gw, `/callbacks/chat_d/${connectorChannel}`, bytes, headers), 400, 'bad_request');
    await expectNothingStored(before);
  });
});

describe('callback bodies sent in chunks (no Content-Length)', () => {
  /** Posts `parts` one write each, chunked; answers the status and the parsed body. */
  const postChunked = (parts: Buffer[]): Promise<{ status: number; body: unknown }> =>
    new Promise((resolve, reject) => {
      const request = http.request(
        `${gw.baseUrl}/callbacks/chat_b/${botChannel}`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
            'x-bot-api-secret-token': botSecret,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
            }),
          );
        },
      );
      request.on('error', reject);
      for (const part of parts) request.write(part);
      request.end();
    });

  it('are read whole, however they are split', async () => {
    const body = Buffer.from(botBody({ text: 'in three parts' }));
    const third = Math.floor(body.length / 3);
    const res = await postChunked([body.subarray(0, third), body.subarray(third, 2 * third), body.subarray(2 * third)]);
    expect(res).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('answer 413 once past the limit and store nothing', async () => {
    const before = await snapshot();
    const res = await postChunked(Array.from({ length: 20 }, () => Buffer.alloc(64 * 1024, 0x20)));
    expect(res.status).toBe(413);
    expect((res.body as { errors: { code: string }[] }).errors[0]!.code).toBe('payload_too_large');
    await expectNothingStored(before);
  });
});
