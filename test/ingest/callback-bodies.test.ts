// How callback bodies are read: bytes that are not valid UTF-8 refused before any signature check, bodies
// sent in chunks read whole, cut short or past the limit storing nothing.
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { cloudBody, createCallbackChannels, postBot, postBytes, rowCounts } from '../helpers/callbacks.js';
import { eventually } from '../helpers/wait.js';

let gw: TestGateway;
let botChannel: number;
let botSecret: string;
let cloudChannel: number;
let appSecret: string;
let connectorChannel: number;
let connectorSecret: string;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  ({ botChannel, botSecret, cloudChannel, appSecret, connectorChannel, connectorSecret } = await createCallbackChannels(
    gw,
    'Bodies Co',
  ));
});
afterAll(() => gw.close());

const store = () => gw.gateway.store;
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
    const counts = rowCounts(store());
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
    expect(rowCounts(store())).toEqual(counts);
  });

  it('are refused with 400 (connector: the library would verify the lossy text, not the bytes)', async () => {
    const counts = rowCounts(store());
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
    expect(rowCounts(store())).toEqual(counts);
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

  /** Callback requests the gateway has finished with (timed by its HTTP metrics), whatever their answer. */
  async function callbacksFinished(): Promise<number> {
    const text = await (
      await fetch(`${gw.baseUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).text();
    return text
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('gateway_http_request_duration_seconds_count{') && line.includes('route="/callbacks/'),
      )
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  }

  it('cut short (the sender goes away before its Content-Length) store nothing, and the next one is taken', async () => {
    const counts = rowCounts(store());
    const finished = await callbacksFinished();
    await new Promise<void>((resolve) => {
      const request = http.request(`${gw.baseUrl}/callbacks/chat_b/${botChannel}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': '4000', 'x-bot-api-secret-token': botSecret },
      });
      request.on('error', () => resolve());
      request.write(botBody({ text: 'never finished' }).slice(0, 40));
      // Gone a moment after the first bytes, so the gateway has begun reading the body.
      setTimeout(() => request.destroy(), 50);
    });
    await eventually('the gateway done with the cut request', async () => (await callbacksFinished()) === finished + 1);
    expect(rowCounts(store())).toEqual(counts);
    expect((await postBot(gw, botChannel, botBody({ text: 'after the cut' }), botSecret)).status).toBe(200);
  });

  it('answer 413 once past the limit and store nothing', async () => {
    const counts = rowCounts(store());
    const res = await postChunked(Array.from({ length: 20 }, () => Buffer.alloc(64 * 1024, 0x20)));
    expect(res.status).toBe(413);
    expect((res.body as { errors: { code: string }[] }).errors[0]!.code).toBe('payload_too_large');
    expect(rowCounts(store())).toEqual(counts);
  });
});
