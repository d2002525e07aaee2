import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { applyCallback } from '../../src/domain/incoming.js';
import { sameSecret } from '../../src/domain/tokens.js';
import { Forbidden } from '../../src/errors/errors.js';
import { httpStatusOf } from '../../src/http/render-errors.js';
import type { IngestBatch } from '../../src/domain/provider-facts.js';
import { emittedEvents } from '../helpers/events.js';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { callbackInfo, checkedEvents, postBot, postBytes, postCloud, rowCounts, seedOutgoing } from '../helpers/callbacks.js';

let gw: TestGateway;
let companyId: number;
let botChannel: number;
let botSecret: string;
let cloudChannel: number;
let appSecret: string;
let verifyToken: string;
let connectorChannel: number;
let connectorSecret: string;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Review Co' } })).body.data.external_id;
  const create = async (json: Record<string, unknown>) => (await gw.request('POST', `/p1/companies/${companyId}/channels`, { json })).body.data.external_id as number;
  botChannel = await create({ provider: 'chat_b', token: '123456:bot-token' });
  cloudChannel = await create({ provider: 'chat_a_business', hosting_type: 'cloud', token: 'EAAG-cloud-token' });
  connectorChannel = (await gw.request('POST', `/api/p2/companies/${companyId}/auths`, { json: { provider: 'chat_d' } })).body.auth.id;
  botSecret = (await callbackInfo(gw, botChannel)).secrets.secret_token!;
  const cloud = await callbackInfo(gw, cloudChannel);
  appSecret = cloud.secrets.app_secret!;
  verifyToken = cloud.secrets.verify_token!;
  connectorSecret = (await callbackInfo(gw, connectorChannel)).secrets.signing_secret!;
});
afterAll(() => gw.close());
afterEach(() => vi.restoreAllMocks());

const store = () => gw.gateway.store;
const admin = { token: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
let seq = 0;
const nextId = () => `review-${++seq}`;

function cloudBody(messages: unknown[] = [], statuses: unknown[] = []): string {
  return JSON.stringify({ object: 'x', entry: [{ id: '1', changes: [{ field: 'messages', value: { contacts: [{ wa_id: '4915112345678', profile: { name: 'Lena' } }], messages, statuses } }] }] });
}
function botBody(message: Record<string, unknown>, key = 'message'): string {
  return JSON.stringify({ update_id: 900000 + ++seq, [key]: { message_id: seq, chat: { id: 555, type: 'private', first_name: 'Ivo' }, date: 1749416383, ...message } });
}
async function detailsOf(externalId: string): Promise<unknown> {
  const row = store().db.prepare('SELECT details FROM messages WHERE external_id = ?').get(externalId) as { details: string | null };
  return row.details === null ? null : JSON.parse(row.details);
}

describe('provider times are bounded (422, never 500)', () => {
  it('bot-style date and edit_date', async () => {
    const counts = rowCounts(store());
    const date = await postBot(gw, botChannel, botBody({ date: 9000000000000, text: 'far future' }), botSecret);
    expect(expectErrorShape(date, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual(['/message/date']);
    const edit = await postBot(gw, botChannel, botBody({ edit_date: 9000000000000, text: 'edited' }, 'edited_message'), botSecret);
    expect(expectErrorShape(edit, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual(['/edited_message/edit_date']);
    // The bound itself is accepted.
    expect((await postBot(gw, botChannel, botBody({ date: 99_999_999_999, text: 'at the bound' }), botSecret)).status).toBe(200);
    expect(rowCounts(store()).messages).toBe(counts.messages! + 1);
  });

  it('cloud-style message and status timestamps', async () => {
    const counts = rowCounts(store());
    const message = await postCloud(gw, cloudChannel, cloudBody([{ id: nextId(), from: '4915112345678', timestamp: '999999999999', type: 'text', text: { body: 'hi' } }]), appSecret);
    expect(expectErrorShape(message, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual(['/entry/0/changes/0/value/messages/0/timestamp']);
    const status = await postCloud(gw, cloudChannel, cloudBody([], [{ id: 'x', status: 'read', timestamp: '999999999999' }]), appSecret);
    expect(expectErrorShape(status, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual(['/entry/0/changes/0/value/statuses/0/timestamp']);
    expect(rowCounts(store())).toEqual(counts);
  });
});

describe('details keep only the known provider fields', () => {
  it('cloud-style location and interactive reply', async () => {
    const location = nextId();
    const reply = nextId();
    const body = cloudBody([
      { id: location, from: '4915112345678', timestamp: '1749416450', type: 'location', location: { latitude: 1.5, longitude: 2.5, name: 'Shop', address: 'Main St 1', url: 'https://x.test', injected: { deep: 'x'.repeat(100) } } },
      { id: reply, from: '4915112345678', timestamp: '1749416451', type: 'interactive', interactive: { type: 'list_reply', list_reply: { id: 'opt-1', title: 'Blue', description: 'the blue one', injected: [1, 2, 3] } } },
    ]);
    expect((await postCloud(gw, cloudChannel, body, appSecret)).status).toBe(200);
    expect(await detailsOf(location)).toEqual({ location: { latitude: 1.5, longitude: 2.5, name: 'Shop', address: 'Main St 1' } });
    expect(await detailsOf(reply)).toEqual({ interactive: { type: 'list_reply', id: 'opt-1', title: 'Blue' } });
  });

  it('cloud-style status errors', async () => {
    const outgoing = `bmid.REVIEW-FAIL-${nextId()}`;
    const text = nextId();
    expect((await postCloud(gw, cloudChannel, cloudBody([{ id: text, from: '4915112345678', timestamp: '1749416450', type: 'text', text: { body: 'x' } }]), appSecret)).status).toBe(200);
    const conversationId = (store().db.prepare('SELECT conversation_id FROM messages WHERE external_id = ?').get(text) as { conversation_id: number }).conversation_id;
    seedOutgoing(store(), conversationId, companyId, outgoing);
    const errors = [
      { code: 131047, title: 'Re-engagement', message: 'Too late', error_data: { details: 'More than 24 hours', injected: 'x' }, href: 'https://x.test', injected: { a: 1 } },
      { title: 'Only a title' },
    ];
    expect((await postCloud(gw, cloudChannel, cloudBody([], [{ id: outgoing, status: 'failed', timestamp: '1749416503', errors }]), appSecret)).status).toBe(200);
    expect(await detailsOf(outgoing)).toEqual({
      errors: [{ code: 131047, title: 'Re-engagement', message: 'Too late', error_data: { details: 'More than 24 hours' } }, { title: 'Only a title' }],
    });
  });

  it('bot-style location', async () => {
    expect((await postBot(gw, botChannel, botBody({ location: { latitude: 3.5, longitude: 4.5, horizontal_accuracy: 10, live_period: 60, name: 7 } }), botSecret)).status).toBe(200);
    expect(await detailsOf(`555:${seq}`)).toEqual({ location: { latitude: 3.5, longitude: 4.5 } });
  });
});

describe('bodies that are not valid UTF-8', () => {
  const invalid = (text: string) => {
    const [before, after] = text.split('MARK') as [string, string];
    return Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xfe]), Buffer.from(after)]);
  };

  it('are refused with 400 before a signature is checked (cloud-style)', async () => {
    const counts = rowCounts(store());
    const bytes = invalid(cloudBody([{ id: nextId(), from: '4915112345678', timestamp: '1749416450', type: 'text', text: { body: 'bad MARK bytes' } }]));
    const signature = `sha256=${createHmac('sha256', appSecret).update(bytes).digest('hex')}`;
    const res = await postBytes(gw, `/callbacks/chat_a_business/${cloudChannel}`, bytes, { 'content-type': 'application/json', 'x-hub-signature-256': signature });
    expectErrorShape(res, 400, 'bad_request');
    expect(rowCounts(store())).toEqual(counts);
  });

  it('are refused with 400 (connector: the library would verify the lossy text, not the bytes)', async () => {
    const counts = rowCounts(store());
    const bytes = invalid(JSON.stringify({ type: 'message', id: nextId(), chat: { id: 'c-1' }, timestamp: Math.floor(Date.now() / 1000), text: 'bad MARK bytes' }));
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

describe('applyCallback', () => {
  const textBatch = (externalId: string): IngestBatch => ({
    receipt: null,
    items: [
      {
        kind: 'message',
        externalId,
        chat: { externalId: `chat-${externalId}`, externalPublicId: `chat-${externalId}`, name: 'Someone', phone: null, isGroup: false },
        income: true,
        sentAt: 1749416383000,
        text: 'hi',
        repliedToId: null,
        attachments: [],
        details: null,
      },
    ],
  });

  it('throws and rolls everything back when the message insert finds the id taken', async () => {
    const counts = rowCounts(store());
    vi.spyOn(store().messages, 'insertOnce').mockReturnValue(undefined);
    const body = JSON.stringify({ update_id: 990001, message: { message_id: 1, chat: { id: 777001, type: 'private', first_name: 'New' }, date: 1749416383, text: 'x' } });
    expectErrorShape(await postBot(gw, botChannel, body, botSecret), 500, 'internal_error');
    // The receipt, contact and conversation written before the insert are gone too.
    expect(rowCounts(store())).toEqual(counts);
  });

  it('counts the events it records without reading the outbox lag', () => {
    const lag = vi.spyOn(store().outbox, 'lag');
    const start = emittedEvents(store()).length;
    const outcome = applyCallback(store(), { id: botChannel, api: 'v2' }, textBatch(nextId()), gw.baseUrl);
    expect(outcome).toEqual({ duplicate: false, messages: 1, events: 2 });
    expect(checkedEvents(store(), start)).toHaveLength(2);
    expect(lag).not.toHaveBeenCalled();
  });

  it('takes the channel api from its caller instead of reading channel_callbacks again', () => {
    const find = vi.spyOn(store().callbacks, 'find');
    const start = emittedEvents(store()).length;
    // The connector channel was created through v2; told v1, the v1 payload follows the auth event.
    const outcome = applyCallback(store(), { id: connectorChannel, api: 'v1' }, { receipt: null, items: [{ kind: 'code', code: '123-456' }] }, gw.baseUrl);
    expect(outcome).toEqual({ duplicate: false, messages: 0, events: 2 });
    expect(checkedEvents(store(), start).map((e) => e.name)).toEqual(['auth.update', 'channel.code']);
    expect(find).not.toHaveBeenCalled();
  });
});

describe('shared helpers', () => {
  it('sameSecret compares any two texts, whatever their lengths', () => {
    expect(sameSecret('token-abc', 'token-abc')).toBe(true);
    expect(sameSecret('token-abc', 'token-abd')).toBe(false);
    expect(sameSecret('token', 'token-abc')).toBe(false);
    expect(sameSecret('', '')).toBe(true);
  });

  it('the handshake refuses with the shared Forbidden error', () => {
    const error = new Forbidden('no');
    expect([httpStatusOf(error), error.code, error.title]).toEqual([403, 'forbidden', 'Forbidden']);
  });

  it('ids in the path are read by pathId: anything else is a channel that was not found', async () => {
    for (const id of ['0', 'abc', '12345678901234567']) {
      const res = await gw.request('GET', `/admin/channels/${id}/callback`, admin);
      expect(expectErrorShape(res, 404, 'not_found')[0]!.detail).toBe(`Channel ${id} was not found.`);
      const callback = await postCloud(gw, id as unknown as number, cloudBody(), appSecret);
      expect(expectErrorShape(callback, 404, 'not_found')[0]!.detail).toBe(`chat_a_business channel ${id} was not found.`);
    }
  });
});

describe('callback settings are read, never created on the fly', () => {
  it('the subscribe handshake validates its query first, then compares the token', async () => {
    const url = (query: string) => `/callbacks/chat_a_business/${cloudChannel}?${query}`;
    // Malformed queries are 422 whatever the token, a wrong mode included.
    expectErrorShape(await gw.request('GET', url('hub.mode=subscribe&hub.verify_token=nope'), { token: null }), 422, 'validation_failed');
    expectErrorShape(await gw.request('GET', url(`hub.mode=unsubscribe&hub.verify_token=${verifyToken}&hub.challenge=1`), { token: null }), 422, 'validation_failed');
    expectErrorShape(await gw.request('GET', url(`hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.verify_token=x&hub.challenge=1`), { token: null }), 422, 'validation_failed');
    expectErrorShape(await gw.request('GET', url('hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1'), { token: null }), 403, 'forbidden');
    expect((await gw.request('GET', url(`hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=42`), { token: null })).text).toBe('42');
  });

  it('a GET of a channel without settings writes nothing', async () => {
    const created = await gw.request('POST', `/api/p2/companies/${companyId}/auths`, { json: { provider: 'chat_a' } });
    expect(created.status, created.text).toBe(201);
    const channel = created.body.auth.id as number;
    store().db.prepare('DELETE FROM channel_callbacks WHERE channel_id = ?').run(channel);
    const res = await gw.request('GET', `/admin/channels/${channel}/callback`, admin);
    expect(res.status).toBe(500);
    expect(store().db.prepare('SELECT count(*) AS n FROM channel_callbacks WHERE channel_id = ?').get(channel)).toEqual({ n: 0 });
    expect(JSON.stringify(res.body)).not.toMatch(/secret_token/);
  });
});

describe('callback bodies sent in chunks (no Content-Length)', () => {
  /** Posts `parts` one write each, chunked; answers the status and the parsed body. */
  const postChunked = (parts: Buffer[]): Promise<{ status: number; body: unknown }> =>
    new Promise((resolve, reject) => {
      const request = http.request(
        `${gw.baseUrl}/callbacks/chat_b/${botChannel}`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-bot-api-secret-token': botSecret } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }));
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

  it('cut short (the sender goes away before its Content-Length) store nothing, and the next one is taken', async () => {
    const counts = rowCounts(store());
    await new Promise<void>((resolve) => {
      const request = http.request(`${gw.baseUrl}/callbacks/chat_b/${botChannel}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': '4000', 'x-bot-api-secret-token': botSecret },
      });
      request.on('error', () => resolve());
      request.write(botBody({ text: 'never finished' }).slice(0, 40));
      setTimeout(() => request.destroy(), 50);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
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
