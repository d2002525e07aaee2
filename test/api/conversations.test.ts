import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { conversationObject } from '../../schemas/objects/conversation.js';
import { emittedEvents, newEvents } from '../helpers/events.js';
import { expectErrorShape, failingFields, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { compileSchema } from '../helpers/schemas.js';
import { seedCompany, seedConversation, type Seeded } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

let gw: TestGateway;
let seeded: Seeded;
const isConversation = compileSchema(conversationObject);

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());
beforeEach(async () => {
  seeded = seedConversation(gw, await seedCompany(gw), { externalTimes: [Date.now()] });
});

const put = (body: Record<string, unknown>, id = seeded.conversationId) =>
  gw.request('PUT', `/api/p2/conversations/${id}`, { json: { company_id: seeded.companyId, ...body } });

describe('PUT /api/p2/conversations/<id>', () => {
  it('answers {conversation} with every Conversation field of the contract', async () => {
    const res = await put({ operational_state: 'archived' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['conversation']);
    expect(isConversation(res.body.conversation), JSON.stringify(isConversation.errors)).toBe(true);
    expect(res.body.conversation).toMatchObject({
      id: seeded.conversationId,
      company_id: seeded.companyId,
      sender_name: 'User 555000111',
      sender_phone: null,
      sender_external_id: '555000111',
      sender_external_public_id: '@user555000111',
      provider: 'chat_b',
      avatar_url: '',
      operational_state: 'archived',
      replied_state: 'unreplied',
      assignee_id: null,
      group: false,
    });
  });

  it.each([
    [{ operational_state: 'archived' }, { operational_state: 'archived' }],
    [{ replied_state: 'replied' }, { replied_state: 'replied' }],
    [{ assignee_id: 42 }, { assignee_id: 42 }],
  ])('moves %j and writes one valid conversation update event', async (change, expected) => {
    const before = emittedEvents(gw.gateway.store).length;
    const res = await put(change);
    expect(res.body.conversation).toMatchObject(expected);
    const events = newEvents(gw.gateway.store, before);
    expect(events.map((e) => e.name)).toEqual(['conversation.update']);
    expect(events[0]!.company_id).toBe(seeded.companyId);
    expect(events[0]!.body.object).toEqual(res.body.conversation);
  });

  it('moves back: archived → open, replied → unreplied, and null removes the assignee', async () => {
    await put({ operational_state: 'archived', replied_state: 'replied', assignee_id: 7 });
    const res = await put({ operational_state: 'open', replied_state: 'unreplied', assignee_id: null });
    expect(res.body.conversation).toMatchObject({
      operational_state: 'open',
      replied_state: 'unreplied',
      assignee_id: null,
    });
    const stored = gw.gateway.store.conversations.find(seeded.companyId, seeded.conversationId)!;
    expect([stored.operational_state, stored.replied_state, stored.assignee_id]).toEqual(['open', 'unreplied', null]);
  });

  it('writes no event when nothing changes', async () => {
    await put({ operational_state: 'archived' });
    const before = emittedEvents(gw.gateway.store).length;
    const res = await put({ operational_state: 'archived' });
    expect(res.status).toBe(200);
    expect(newEvents(gw.gateway.store, before)).toEqual([]);
    expect((await put({})).status).toBe(200);
    expect(newEvents(gw.gateway.store, before)).toEqual([]);
  });

  it.each([
    [{ operational_state: 'closed' }, ['operational_state']],
    [{ replied_state: 'maybe' }, ['replied_state']],
    [{ assignee_id: 'seven' }, ['assignee_id']],
    [{ assignee_id: 1.5 }, ['assignee_id']],
    [{ assignee_id: 1e300 }, ['assignee_id']],
    [
      { operational_state: 1, replied_state: null, assignee_id: 0 },
      ['operational_state', 'replied_state', 'assignee_id'],
    ],
  ])('answers 422 naming each invalid field for %j, changing nothing', async (body, fields) => {
    const before = emittedEvents(gw.gateway.store).length;
    const res = await put(body);
    expect(failingFields(res).sort()).toEqual([...fields].sort());
    expect(gw.gateway.store.conversations.find(seeded.companyId, seeded.conversationId)!.operational_state).toBe(
      'open',
    );
    expect(newEvents(gw.gateway.store, before)).toEqual([]);
  });

  it('requires company_id as an integer', async () => {
    const missing = await gw.request('PUT', `/api/p2/conversations/${seeded.conversationId}`, {
      json: { operational_state: 'archived' },
    });
    expect(failingFields(missing)).toEqual(['company_id']);
    const text = await gw.request('PUT', `/api/p2/conversations/${seeded.conversationId}`, {
      json: { company_id: 'one' },
    });
    expect(failingFields(text)).toEqual(['company_id']);
  });

  it('answers 404 for an unknown id, a conversation of another company, and another account', async () => {
    expectErrorShape(await put({ operational_state: 'archived' }, 999_999), 404, 'not_found');
    const other = seedConversation(gw, await seedCompany(gw, gw.token, 'Second'), { sender: '777' });
    const crossCompany = await gw.request('PUT', `/api/p2/conversations/${other.conversationId}`, {
      json: { company_id: seeded.companyId, operational_state: 'archived' },
    });
    expectErrorShape(crossCompany, 404, 'not_found');

    const intruder = await gw.createAccount('intruder');
    const foreign = await gw.request('PUT', `/api/p2/conversations/${seeded.conversationId}`, {
      token: intruder,
      json: { company_id: seeded.companyId, operational_state: 'archived' },
    });
    expectErrorShape(foreign, 404, 'not_found');
    expect(gw.gateway.store.conversations.find(seeded.companyId, seeded.conversationId)!.operational_state).toBe(
      'open',
    );
  });

  it('takes the token from the body or the query as well', async () => {
    const body = await gw.request('PUT', `/api/p2/conversations/${seeded.conversationId}`, {
      token: null,
      json: { private_api_token: gw.token, company_id: seeded.companyId, replied_state: 'replied' },
    });
    expect(body.status).toBe(200);
    const query = await gw.request(
      'PUT',
      `/api/p2/conversations/${seeded.conversationId}?private_api_token=${gw.token}`,
      {
        token: null,
        json: { company_id: seeded.companyId, replied_state: 'unreplied' },
      },
    );
    expect(query.body.conversation.replied_state).toBe('unreplied');
  });
});

describe('GET /api/p2/conversations/<id>', () => {
  it('answers the conversation, with company_id in the query or as a JSON body', async () => {
    const query = await gw.request(
      'GET',
      `/api/p2/conversations/${seeded.conversationId}?company_id=${seeded.companyId}`,
    );
    expect(query.status).toBe(200);
    expect(isConversation(query.body.conversation)).toBe(true);
    const json = await gw.request('GET', `/api/p2/conversations/${seeded.conversationId}`, {
      json: { company_id: seeded.companyId },
    });
    expect(json.body).toEqual(query.body);
  });

  it('answers 404 for another account', async () => {
    const res = await gw.request(
      'GET',
      `/api/p2/conversations/${seeded.conversationId}?company_id=${seeded.companyId}`,
      {
        token: await gw.createAccount(),
      },
    );
    expectErrorShape(res, 404, 'not_found');
  });
});

describe('GET /api/p2/conversations', () => {
  it('pages through a company, most recently updated first, filterable by operational_state', async () => {
    const target = await seedCompany(gw, gw.token, 'Lister');
    const ids = ['1', '2', '3'].map((sender) => seedConversation(gw, target, { sender }).conversationId);
    // The change must come in a later millisecond than the seeds (updated_at is in ms, ties go by
    // id): on a fast machine the request was answered within the millisecond of the last seed.
    const seededAt = Date.now();
    await eventually('a later millisecond than the seeds', () => Date.now() > seededAt);
    await gw.request('PUT', `/api/p2/conversations/${ids[0]}`, {
      json: { company_id: target.companyId, operational_state: 'archived' },
    });

    const all = await gw.request('GET', `/api/p2/conversations?company_id=${target.companyId}&per_page=2`);
    expect(all.status).toBe(200);
    expect(all.body.meta).toEqual({ page: 1, entries_count: 3, per_page: 2 });
    expect(all.body.conversations.map((c: { id: number }) => c.id)).toEqual([ids[0], ids[2]]);
    const second = await gw.request('GET', `/api/p2/conversations?company_id=${target.companyId}&per_page=2&page=2`);
    expect(second.body.conversations.map((c: { id: number }) => c.id)).toEqual([ids[1]]);

    const archived = await gw.request(
      'GET',
      `/api/p2/conversations?company_id=${target.companyId}&operational_state=archived`,
    );
    expect(archived.body.conversations.map((c: { id: number }) => c.id)).toEqual([ids[0]]);
    expect(archived.body.meta).toEqual({ page: 1, entries_count: 1, per_page: 25 });
  });

  it.each([
    ['per_page=101', ['per_page']],
    ['per_page=0', ['per_page']],
    ['page=0', ['page']],
    ['page=x', ['page']],
    ['operational_state=closed', ['operational_state']],
  ])('answers 422 for %s', async (query, fields) => {
    const res = await gw.request('GET', `/api/p2/conversations?company_id=${seeded.companyId}&${query}`);
    expect(failingFields(res)).toEqual(fields);
  });
});
