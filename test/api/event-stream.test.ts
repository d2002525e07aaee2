// GET /api/p2/companies/:id/events/stream: the company's v2 events as Server-Sent Events, their
// exact ids and order, a resume after Last-Event-ID with no gap and no repeat, the 409 of an id not
// kept, the per-company cap (429) and the other account's 404.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/domain/events.js';
import { presentConversation } from '../../src/presenters/conversation.js';
import { expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { seedCompany, seedConversation } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

const streamPath = (companyId: number) => `/api/p2/companies/${companyId}/events/stream`;

interface SseMessage {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** An open stream: its parsed messages so far, and a close. */
function openStream(
  companyId: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; messages: SseMessage[]; text: () => string; close: () => void }> {
  return new Promise((resolve, reject) => {
    const url = new URL(streamPath(companyId), gw.baseUrl);
    const req = http.get(url, { headers: { 'x-private-api-token': gw.token, ...headers } }, (res) => {
      const messages: SseMessage[] = [];
      let buffer = '';
      let all = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        all += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((line) => !line.startsWith(':'))
              .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
          );
          const { id, event, data } = fields as Partial<Record<string, string>>;
          if (id !== undefined && event !== undefined && data !== undefined)
            messages.push({ id, event, data: JSON.parse(data) as Record<string, unknown> });
        }
      });
      resolve({ status: res.statusCode ?? 0, messages, text: () => all, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

/** Records conversation.create events for new conversations; answers their event ids in order. */
function recordConversations(target: { companyId: number; channelId: number }, senders: string[]): string[] {
  const store = gw.gateway.store;
  return senders.map((sender) => {
    const { conversationId } = seedConversation(gw, target, { sender });
    return store.transaction(() => {
      const row = store.conversations.find(target.companyId, conversationId);
      return recordEvent(store.outbox, target.companyId, 'conversation', 'create', presentConversation(row!)).id;
    });
  });
}

describe('GET /api/p2/companies/:id/events/stream', () => {
  it('streams new events with their ids and types in order, then resumes after Last-Event-ID with no gap and no repeat', async () => {
    const target = await seedCompany(gw, gw.token, 'Stream Co');
    const stream = await openStream(target.companyId);
    expect(stream.status).toBe(200);
    const first = recordConversations(target, ['700000001', '700000002', '700000003']);
    await eventually('three events streamed', () => stream.messages.length >= 3);
    expect(stream.messages.map((m) => m.id)).toEqual(first);
    expect(stream.messages.map((m) => m.event)).toEqual([
      'conversation.create',
      'conversation.create',
      'conversation.create',
    ]);
    expect(stream.messages[0]?.data).toMatchObject({ id: first[0], event: 'create', type: 'conversation' });
    expect(stream.messages[0]?.data.object).toMatchObject({ company_id: target.companyId });
    stream.close();

    const later = recordConversations(target, ['700000004', '700000005']);
    const resumed = await openStream(target.companyId, { 'last-event-id': first[1] ?? '' });
    await eventually('the resumed stream caught up', () => resumed.messages.length >= 3);
    expect(resumed.messages.map((m) => m.id)).toEqual([first[2], ...later]);
    resumed.close();
  });

  it('answers 409 in the error shape for a Last-Event-ID that is not kept', async () => {
    const { companyId } = await seedCompany(gw, gw.token, 'Unknown Id Co');
    const res = await gw.request('GET', streamPath(companyId), { headers: { 'last-event-id': 'evt_nosuchevent' } });
    expectErrorShape(res, 409, 'conflict');
  });

  it('caps open streams per company at 5 (429), and frees a slot when a client goes away', async () => {
    const { companyId } = await seedCompany(gw, gw.token, 'Capped Co');
    const streams = await Promise.all([1, 2, 3, 4, 5].map(() => openStream(companyId)));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = await gw.request('GET', streamPath(companyId));
    expectErrorShape(refused, 429, 'too_many_requests');
    streams[0]?.close();
    let again: Awaited<ReturnType<typeof openStream>> | undefined;
    await eventually('a slot is free again', async () => {
      again?.close();
      again = await openStream(companyId);
      return again.status === 200;
    });
    again?.close();
    for (const s of streams) s.close();
  });

  it("answers 404 for another account's company", async () => {
    const { companyId } = await seedCompany(gw, gw.token, 'Private Co');
    const other = await gw.createAccount('Stream Outsider');
    const res = await gw.request('GET', streamPath(companyId), { token: other });
    expectErrorShape(res, 404, 'not_found');
  });
});
