import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emittedEvents, newEvents } from '../helpers/events.js';
import { expectErrorShape, failingFields, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { seedCompany, seedConversation, type Seeded } from '../helpers/seed.js';

/** pact-im/api-doc _includes/v1_conversations.md: "Update note for conversation", "Update assignee for conversation". */

let gw: TestGateway;
let seeded: Seeded;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());
beforeEach(async () => {
  seeded = seedConversation(gw, await seedCompany(gw), { externalTimes: [Date.parse('2026-11-01T10:00:00Z')] });
});

const path = (what: 'note' | 'assign', s: Seeded = seeded) =>
  `/p1/companies/${s.companyId}/conversations/${s.conversationId}/${what}`;
const stored = (s: Seeded = seeded) =>
  gw.gateway.store.db
    .prepare<[number], { note: string | null; assignee_id: number | null }>(
      'SELECT note, assignee_id FROM conversations WHERE id = ?',
    )
    .get(s.conversationId)!;
const eventCount = () => emittedEvents(gw.gateway.store).length;

describe('PUT /p1/companies/<COMPANY_ID>/conversations/<ID>/note', () => {
  it('keeps the note from a form body, answers {status: "updated"} and writes conversation.update with it', async () => {
    const before = eventCount();
    const res = await gw.request('PUT', path('note'), { form: 'note=your+note' });
    expect([res.status, res.body]).toEqual([200, { status: 'updated' }]);
    expect(stored().note).toBe('your note');
    const events = newEvents(gw.gateway.store, before);
    expect(events.map((e) => [e.name, (e.body.object as { id: number; note: string }).note])).toEqual([
      ['conversation.update', 'your note'],
    ]);
    expect((events[0]!.body.object as { id: number }).id).toBe(seeded.conversationId);
    const shown = await gw.request(
      'GET',
      `/api/p2/conversations/${seeded.conversationId}?company_id=${seeded.companyId}`,
    );
    expect(shown.body.conversation.note).toBe('your note');
  });

  it('writes no event for the same note again, and removes the note with an empty one', async () => {
    await gw.request('PUT', path('note'), { json: { note: 'call back' } });
    const before = eventCount();
    expect((await gw.request('PUT', path('note'), { json: { note: 'call back' } })).status).toBe(200);
    expect(newEvents(gw.gateway.store, before)).toEqual([]);
    expect((await gw.request('PUT', path('note'), { json: { note: '' } })).body).toEqual({ status: 'updated' });
    expect(stored().note).toBeNull();
    const events = newEvents(gw.gateway.store, before);
    expect(events.map((e) => [e.name, (e.body.object as { note: string | null }).note])).toEqual([
      ['conversation.update', null],
    ]);
  });

  it.each([
    ['no note', {}],
    ['a note that is no text', { note: 5 }],
    ['a note over 10000 characters', { note: 'x'.repeat(10_001) }],
  ])('refuses %s with a 422 on note, changing nothing', async (_name, body) => {
    const before = eventCount();
    expect(failingFields(await gw.request('PUT', path('note'), { json: body }))).toEqual(['note']);
    expect(stored().note).toBeNull();
    expect(newEvents(gw.gateway.store, before)).toEqual([]);
  });
});

describe('PUT /p1/companies/<COMPANY_ID>/conversations/<ID>/assign', () => {
  it('sets the assignee from a form body, answers the conversation external_id and writes conversation.update', async () => {
    const before = eventCount();
    const res = await gw.request('PUT', path('assign'), { form: 'assignee_id=42' });
    expect([res.status, res.body]).toEqual([
      200,
      { status: 'ok', data: { conversation: { external_id: seeded.conversationId } } },
    ]);
    expect(stored().assignee_id).toBe(42);
    const events = newEvents(gw.gateway.store, before);
    expect(events.map((e) => [e.name, (e.body.object as { assignee_id: number }).assignee_id])).toEqual([
      ['conversation.update', 42],
    ]);
  });

  it('unassigns without assignee_id or with null; an unchanged assignee writes no event', async () => {
    await gw.request('PUT', path('assign'), { json: { assignee_id: 7 } });
    let before = eventCount();
    await gw.request('PUT', path('assign'), { json: { assignee_id: 7 } });
    expect(newEvents(gw.gateway.store, before)).toEqual([]);
    expect((await gw.request('PUT', path('assign'), { json: {} })).status).toBe(200);
    expect(stored().assignee_id).toBeNull();
    expect(newEvents(gw.gateway.store, before).map((e) => e.name)).toEqual(['conversation.update']);
    await gw.request('PUT', path('assign'), { json: { assignee_id: 7 } });
    before = eventCount();
    expect((await gw.request('PUT', path('assign'), { json: { assignee_id: null } })).status).toBe(200);
    expect(stored().assignee_id).toBeNull();
    expect(
      newEvents(gw.gateway.store, before).map((e) => [e.name, (e.body.object as { assignee_id: null }).assignee_id]),
    ).toEqual([['conversation.update', null]]);
  });

  it.each([
    ['a text', { form: 'assignee_id=abc' }],
    ['zero', { json: { assignee_id: 0 } }],
    ['a fraction', { json: { assignee_id: 1.5 } }],
  ])('refuses %s as assignee_id with a 422, changing nothing', async (_name, options) => {
    const before = eventCount();
    expect(failingFields(await gw.request('PUT', path('assign'), options))).toEqual(['assignee_id']);
    expect(stored().assignee_id).toBeNull();
    expect(newEvents(gw.gateway.store, before)).toEqual([]);
  });
});

describe.each(['note', 'assign'] as const)('PUT .../conversations/<ID>/%s, not found', (what) => {
  const body = what === 'note' ? { note: 'x' } : { assignee_id: 3 };

  it('answers 404 for an unknown conversation, one of another company, and a company of another account', async () => {
    const other = seedConversation(gw, await seedCompany(gw, gw.token, 'Other Co'), { sender: '555000222' });
    const foreignToken = await gw.createAccount(`walker-${what}`);
    const foreign = seedConversation(gw, await seedCompany(gw, foreignToken, 'Foreign Co'), { sender: '555000333' });
    const before = eventCount();
    for (const target of [
      `/p1/companies/${seeded.companyId}/conversations/999999/${what}`,
      `/p1/companies/${seeded.companyId}/conversations/${other.conversationId}/${what}`,
      path(what, foreign),
    ]) {
      expectErrorShape(await gw.request('PUT', target, { json: body }), 404, 'not_found');
    }
    expect(newEvents(gw.gateway.store, before)).toEqual([]);
    expect(stored(foreign)).toEqual({ note: null, assignee_id: null });
  });

  it('answers 401 without the API token', async () => {
    expectErrorShape(await gw.request('PUT', path(what), { token: null, json: body }), 401, 'unauthorized');
    expect(stored()).toEqual({ note: null, assignee_id: null });
  });
});
