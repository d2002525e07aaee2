// GET /api/p2/companies/:id/events/stream: the company's v2 events as Server-Sent Events, their
// exact ids and order, a resume after Last-Event-ID with no gap and no repeat, the 409 of an id not
// kept, the caps per company and per account (429), the end of a revoked token's stream and the
// other account's 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/domain/events.js';
import { presentConversation } from '../../src/presenters/conversation.js';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { seedCompany, seedConversation } from '../helpers/seed.js';
import { openSse, type OpenSse } from '../helpers/sse.js';
import { eventually } from '../helpers/wait.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
});
afterAll(async () => {
  await gw.close();
});

const streamPath = (companyId: number) => `/api/p2/companies/${companyId}/events/stream`;

function openStream(companyId: number, headers: Record<string, string> = {}, token = gw.token): Promise<OpenSse> {
  return openSse(gw.baseUrl, streamPath(companyId), { 'x-private-api-token': token, ...headers });
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
    let again: OpenSse | undefined;
    await eventually('a slot is free again', async () => {
      again?.close();
      again = await openStream(companyId);
      return again.status === 200;
    });
    again?.close();
    for (const s of streams) s.close();
  });

  it('caps open streams per account at 20 over all its companies (429)', async () => {
    const account = await gw.createAccount('Many Streams');
    const companies = await Promise.all(
      [1, 2, 3, 4, 5].map(async (n) => (await seedCompany(gw, account, `Streams ${n}`)).companyId),
    );
    const streams = await Promise.all(
      companies.slice(0, 4).flatMap((id) => [1, 2, 3, 4, 5].map(() => openStream(id, {}, account))),
    );
    expect(streams.map((s) => s.status)).toEqual(streams.map(() => 200));
    const refused = await gw.request('GET', streamPath(companies[4]!), { token: account });
    expectErrorShape(refused, 429, 'too_many_requests');
    // Another account's streams are counted on their own.
    const elsewhere = await openStream((await seedCompany(gw, gw.token, 'Not Capped Co')).companyId);
    expect(elsewhere.status).toBe(200);
    elsewhere.close();
    for (const s of streams) s.close();
  });

  it('ends the stream when its token is revoked', async () => {
    const account = await gw.createAccount('Revoked Streamer');
    const { companyId } = await seedCompany(gw, account, 'Revoked Co');
    const stream = await openStream(companyId, {}, account);
    expect(stream.status).toBe(200);
    const admin = { token: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };
    const { tokens } = (await gw.request('GET', '/admin/tokens', admin)).body as {
      tokens: { id: number; account_name: string }[];
    };
    const token = tokens.find((t) => t.account_name === 'Revoked Streamer')!;
    expect((await gw.request('POST', `/admin/tokens/${token.id}/revoke`, admin)).status).toBe(200);
    await stream.ended;
  });

  it("serves the portal the session's company stream, and ends it when the session ends", async () => {
    const target = await seedCompany(gw, gw.token, 'Portal Stream Co');
    const link = await gw.request('POST', `/api/p2/companies/${target.companyId}/portal_sessions`);
    const token = new URL((link.body as { portal_session: { url: string } }).portal_session.url).hash.slice(1);
    const opened = await fetch(`${gw.baseUrl}/portal/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: gw.baseUrl },
      body: JSON.stringify({ token }),
    });
    expect(opened.status).toBe(201);
    const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = ((await opened.json()) as { session: { csrf_token: string } }).session.csrf_token;
    const stream = await openSse(gw.baseUrl, '/portal/api/events/stream', { cookie });
    expect(stream.status).toBe(200);
    const [id] = recordConversations(target, ['700000009']);
    await eventually('the portal stream got the event', () => stream.messages.some((m) => m.id === id));
    const ended = await fetch(`${gw.baseUrl}/portal/session`, {
      method: 'DELETE',
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(ended.status).toBe(200);
    await stream.ended;
    const refused = await gw.request('GET', '/portal/api/events/stream', { token: null, headers: { cookie } });
    expectErrorShape(refused, 401, 'unauthorized');
  });

  it("answers 404 for another account's company", async () => {
    const { companyId } = await seedCompany(gw, gw.token, 'Private Co');
    const other = await gw.createAccount('Stream Outsider');
    const res = await gw.request('GET', streamPath(companyId), { token: other });
    expectErrorShape(res, 404, 'not_found');
  });
});
