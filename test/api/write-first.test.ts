import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emittedEvents, newEvents } from '../helpers/events.js';
import { expectErrorShape, failingFields, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let companyId: number;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

/** A company with enabled channels of the given providers (session channels are confirmed by hand here). */
async function companyWith(providers: Record<string, Record<string, unknown>>): Promise<number> {
  const id = (await gw.request('POST', '/p1/companies', { json: { name: 'Writer' } })).body.data.external_id as number;
  for (const [provider, params] of Object.entries(providers)) {
    const res = await gw.request('POST', `/p1/companies/${id}/channels`, { json: { provider, ...params } });
    expect(res.status).toBe(201);
    gw.gateway.store.db.prepare("UPDATE channels SET state = 'enabled' WHERE id = ?").run(res.body.data.external_id);
  }
  return id;
}

const writeFirst = (body: Record<string, unknown>, company = companyId) =>
  gw.request('POST', '/api/p2/messages', { json: { company_id: company, ...body } });
/** Rows a request writes; the senders' outcomes of earlier sends (message.update events) may still arrive. */
const counts = () =>
  gw.gateway.store.db
    .prepare<[], Record<string, number>>(
      `SELECT (SELECT count(*) FROM contacts) AS contacts, (SELECT count(*) FROM conversations) AS conversations, (SELECT count(*) FROM messages) AS messages, (SELECT count(*) FROM outbox WHERE payload NOT LIKE '%"name":"message.update"%') AS outbox`,
    )
    .get()!;

beforeEach(async () => {
  companyId = await companyWith({
    chat_a: {},
    chat_d: {},
    chat_b_personal: { via_qr_code: true },
    chat_a_business: { hosting_type: 'cloud', token: 'cloud-token' },
    social_a_direct: { token: 'vk-token' },
  });
  gw.gateway.store.templates.insert({
    company_id: companyId,
    channel_id: null,
    name: 'order_ready',
    body: 'Hello {{1}}, order {{2}} is ready',
    biz_template_id: 'tpl-order-ready',
    language: 'en',
    substitutions_count: 2,
    header_content_type: null,
    header: null,
    namespace: null,
    position: 1,
  });
});

describe('POST /api/p2/messages (write first)', () => {
  it('creates the contact and the conversation, and answers the outgoing message', async () => {
    const before = emittedEvents(gw.gateway.store).length;
    const res = await writeFirst({ provider: 'chat_a', phone: '+79161234567', text: 'First words' });
    expect(res.status).toBe(201);
    // pact-im/api-doc content/ru/v2/conversations/write-first-message.md: the answer's status is `sent`, external_id null.
    expect(res.body.message).toMatchObject({
      income: false,
      external_id: null,
      status: 'sent',
      message: 'First words',
      delivery: false,
      deleted: false,
    });
    // The request's own events; the sender's outcome (message.update) may already follow them.
    const events = newEvents(gw.gateway.store, before).filter((e) => e.name !== 'message.update');
    expect(events.map((e) => e.name)).toEqual(['conversation.create', 'message.create', 'conversation.update']);
    expect(events[0]!.body.object).toMatchObject({
      sender_external_id: '79161234567',
      sender_phone: '79161234567',
      provider: 'chat_a',
      operational_state: 'open',
    });

    const again = await writeFirst({ provider: 'chat_a', phone: '79161234567', text: 'Second words' });
    expect(again.body.message.conversation_id).toBe(res.body.message.conversation_id);
    expect(again.body.message.contact_id).toBe(res.body.message.contact_id);
  });

  it.each([
    [{ provider: 'chat_d', phone: '14155552671', text: 'hi' }, '14155552671'],
    [{ provider: 'chat_b_personal', nickname: '@Some_User', text: 'hi' }, '@some_user'],
    [{ provider: 'chat_b_personal', phone: '447700900123', text: 'hi' }, '447700900123'],
    [{ provider: 'social_a_direct', social_a_id: '123456', text: 'hi' }, '123456'],
    [{ provider: 'social_a_direct', social_a_domain: 'durov', text: 'hi' }, 'domain:durov'],
  ])('writes first through %j', async (body, externalId) => {
    const res = await writeFirst(body);
    expect(res.status).toBe(201);
    const conversation = gw.gateway.store.conversations.find(companyId, res.body.message.conversation_id)!;
    expect(conversation.contact_external_id).toBe(externalId);
    expect(conversation.provider).toBe(body.provider);
  });

  it('sends a business template with its substitutions rendered', async () => {
    const res = await writeFirst({
      provider: 'chat_a_business',
      phone: '79161234567',
      biz_template_id: 'tpl-order-ready',
      substitutions: ['Ann', '42'],
    });
    expect(res.status).toBe(201);
    expect(res.body.message.message).toBe('Hello Ann, order 42 is ready');
    expect(res.body.message.details).toEqual({
      template: { bizTemplateId: 'tpl-order-ready', substitutions: ['Ann', '42'] },
    });
  });

  it.each([
    [
      'both social_a_id and social_a_domain',
      { provider: 'social_a_direct', social_a_id: '1', social_a_domain: 'x', text: 'hi' },
      ['social_a_id', 'social_a_domain'],
    ],
    [
      'neither social_a_id nor social_a_domain',
      { provider: 'social_a_direct', text: 'hi' },
      ['social_a_id', 'social_a_domain'],
    ],
    ['no phone for chat_a', { provider: 'chat_a', text: 'hi' }, ['phone']],
    ['no phone or nickname for chat_b_personal', { provider: 'chat_b_personal', text: 'hi' }, ['phone', 'nickname']],
    ['a provider outside the five', { provider: 'chat_b', phone: '79161234567', text: 'hi' }, ['provider']],
    ['no provider', { phone: '79161234567', text: 'hi' }, ['provider']],
    ['a bad phone', { provider: 'chat_a', phone: '8-916-123', text: 'hi' }, ['phone']],
    ['nothing to send', { provider: 'chat_a', phone: '79161234567' }, ['text']],
    ['two attachments', { provider: 'chat_a', phone: '79161234567', attachment_ids: [1, 2] }, ['attachment_ids']],
    [
      'a template through chat_a',
      { provider: 'chat_a', phone: '79161234567', biz_template_id: 'tpl-order-ready', substitutions: ['a', 'b'] },
      ['biz_template_id', 'text'],
    ],
    [
      'chat_a_business without a template',
      { provider: 'chat_a_business', phone: '79161234567', text: 'hi' },
      ['biz_template_id'],
    ],
    [
      'an unknown template',
      { provider: 'chat_a_business', phone: '79161234567', biz_template_id: 'nope' },
      ['biz_template_id'],
    ],
    [
      'too few substitutions',
      { provider: 'chat_a_business', phone: '79161234567', biz_template_id: 'tpl-order-ready', substitutions: ['Ann'] },
      ['substitutions'],
    ],
    [
      'no substitutions for a template that has them',
      { provider: 'chat_a_business', phone: '79161234567', biz_template_id: 'tpl-order-ready' },
      ['substitutions'],
    ],
    [
      'substitutions that are not strings',
      { provider: 'chat_a_business', phone: '79161234567', biz_template_id: 'tpl-order-ready', substitutions: [1, 2] },
      ['substitutions/0', 'substitutions/1'],
    ],
  ])('answers 422 for %s and stores nothing', async (_name, body, fields) => {
    const before = counts();
    expect(failingFields(await writeFirst(body))).toEqual(fields);
    expect(counts()).toEqual(before);
  });

  it('answers 422 on provider when the company has no channel of it, storing nothing', async () => {
    const bare = (await gw.request('POST', '/p1/companies', { json: { name: 'Bare' } })).body.data
      .external_id as number;
    const before = counts();
    const res = await writeFirst({ provider: 'chat_a', phone: '79161234567', text: 'hi' }, bare);
    expect(failingFields(res)).toEqual(['provider']);
    expect(counts()).toEqual(before);
  });

  it('answers 409 for a channel that is not enabled, leaving no contact or conversation behind', async () => {
    const company = (await gw.request('POST', '/p1/companies', { json: { name: 'Unconfirmed' } })).body.data
      .external_id as number;
    await gw.request('POST', `/p1/companies/${company}/channels`, { json: { provider: 'chat_a' } });
    const before = counts();
    const res = await writeFirst({ provider: 'chat_a', phone: '79161234567', text: 'hi' }, company);
    expect(expectErrorShape(res, 409, 'conflict')[0]!.detail).toMatch(/unconfirmed/);
    expect(counts()).toEqual(before);
  });

  it("answers 404 for another account's company", async () => {
    const res = await gw.request('POST', '/api/p2/messages', {
      token: await gw.createAccount(),
      json: { company_id: companyId, provider: 'chat_a', phone: '79161234567', text: 'hi' },
    });
    expectErrorShape(res, 404, 'not_found');
  });
});
