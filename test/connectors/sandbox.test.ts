// The sandbox connector through HTTP alone (its events arrive as the companies' webhooks,
// test/helpers/company-events.ts), so it runs against a cluster too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observeCompanyEvents, type CompanyEvents } from '../helpers/company-events.js';
import {
  ADMIN_TOKEN,
  expectErrorShape,
  failingFields,
  startTestGateway,
  TO_RECEIVERS,
  type TestGateway,
} from '../helpers/gateway.js';
import { readQr } from '../helpers/qr.js';
import { eventually } from '../helpers/wait.js';
import { newCompany } from '../helpers/seed.js';

let gw: TestGateway;
let company: number;
const observers: CompanyEvents[] = [];
/** A company whose every event the test reads. */
async function observedCompany(name: string): Promise<{ id: number; events: CompanyEvents }> {
  const id = await newCompany(gw, { name });
  const events = await observeCompanyEvents(gw, id);
  observers.push(events);
  return { id, events };
}
let events: CompanyEvents;
const admin = { token: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } };

beforeAll(async () => {
  gw = await startTestGateway({
    GATEWAY_SANDBOX: 'true',
    GATEWAY_SANDBOX_STEP: '100ms',
    ...TO_RECEIVERS,
  });
  ({ id: company, events } = await observedCompany('Sandbox Co'));
});
afterAll(async () => {
  await gw.close();
  for (const observer of observers) await observer.close();
});

const authState = async (owner: number, id: number) =>
  (await gw.request('GET', `/api/p2/companies/${owner}/auths/${id}`)).body.auth.state as string;
const messageStatus = async (conversation: number, id: number) =>
  (await gw.request('GET', `/api/p2/conversations/${conversation}/messages/${id}?company_id=${company}`)).body.message
    .status as string;

describe('the sandbox connector (GATEWAY_SANDBOX=true)', () => {
  // pact-im/api-doc content/en/v2/auths/confirm-auth.md: the qr field is a Base64-encoded QR image.
  it('shows a QR (a PNG a phone reads), refreshes it, "scans" it; an injected message and a reply that goes sent → delivered → read', async () => {
    const before = await events.count();
    const created = await gw.request('POST', `/api/p2/companies/${company}/auths`, { json: { provider: 'chat_a' } });
    expect(readQr(created.body.auth.qr)).toMatch(/^sandbox-qr:\d+:/);
    const id = created.body.auth.id as number;
    await eventually('the QR is scanned', async () => (await authState(company, id)) === 'enabled', 5_000);
    const authUpdates = (await events.since(before))
      .filter((e) => e.name === 'auth.update')
      .map((e) => e.body.object as { state: string; qr?: string });
    expect(authUpdates.map((o) => [o.state, typeof o.qr])).toEqual([
      ['unconfirmed', 'string'],
      ['unconfirmed', 'string'],
      ['enabled', 'undefined'],
    ]);
    expect(readQr(authUpdates[0]!.qr!)).not.toBe(readQr(authUpdates[1]!.qr!));

    const injected = await gw.request('POST', `/admin/sandbox/channels/${id}/messages`, {
      ...admin,
      json: { from: '491701234567', name: 'Jonas', text: 'Hallo!' },
    });
    expect(injected.status).toBe(201);
    expect(injected.body.message).toMatchObject({ income: true, status: 'created', message: 'Hallo!' });
    const conversation = injected.body.message.conversation_id as number;
    expect(
      failingFields(
        await gw.request('POST', `/admin/sandbox/channels/${id}/messages`, {
          ...admin,
          json: { from: '4917', text: '' },
        }),
      ),
    ).toEqual(['text']);
    expectErrorShape(
      await gw.request('POST', `/admin/sandbox/channels/999999/messages`, {
        ...admin,
        json: { from: '4917', text: 'x' },
      }),
      404,
      'not_found',
    );

    const sendBefore = await events.count();
    const reply = await gw.request('POST', `/api/p2/conversations/${conversation}/messages`, {
      json: { company_id: company, text: 'Hallo Jonas' },
    });
    const messageId = reply.body.message.id as number;
    await eventually('the reply is read', async () => (await messageStatus(conversation, messageId)) === 'read', 5_000);
    const updates = (await events.since(sendBefore))
      .filter((e) => e.name === 'message.update')
      .map((e) => (e.body.object as { status: string }).status);
    expect(updates).toEqual(['sent', 'delivered', 'read']);

    const refused = await gw.request('POST', `/api/p2/conversations/${conversation}/messages`, {
      json: { company_id: company, text: '/fail' },
    });
    await eventually(
      'the refusal',
      async () => (await messageStatus(conversation, refused.body.message.id)) === 'error',
      5_000,
    );
  });

  // pact-im/api-doc _includes/v1_webhooks.md (new QR-code, connected, synchronization completed) and
  // _includes/v1_channels.md ("How to check if user has Whatsapp account").
  it('a v1 chat_a channel: the QR webhook is a PNG of the sandbox payload, then authorized and synchronized; user_exists answers', async () => {
    const { id: other, events: otherEvents } = await observedCompany('Sandbox v1');
    const before = await otherEvents.count();
    const channel = (await gw.request('POST', `/p1/companies/${other}/channels`, { json: { provider: 'chat_a' } })).body
      .data.external_id as number;
    const userExists = (phone: string) =>
      gw.request('GET', `/p1/companies/${other}/channels/${channel}/user_exists?phone=${phone}`);
    expectErrorShape(await userExists('491701234567'), 409, 'conflict');
    await eventually(
      'synchronized',
      async () =>
        (await otherEvents.since(before)).some(
          (e) => (e.body.data as { message?: string } | undefined)?.message === 'synchronized',
        ),
      5_000,
    );
    const v1 = (await otherEvents.since(before)).filter((e) => e.name.startsWith('channel.'));
    expect(
      v1.map((e) => (e.body.type === 'system' ? (e.body.data as { message: string }).message : e.body.type)),
    ).toEqual(['qr_code', 'qr_code', 'authorized', 'synchronized']);
    expect(readQr(v1[0]!.body.data as string)).toMatch(new RegExp(`^sandbox-qr:${channel}:`));
    expect((await userExists('491701234567')).body).toEqual({ status: 'ok', exists: true });
    expect((await userExists('491701230000')).body).toEqual({ status: 'ok', exists: false });
  });

  it('accepts any code, answers request_code, syncs sample templates for chat_a_business', async () => {
    const other = (await gw.request('POST', '/p1/companies', { json: { name: 'Sandbox Two' } })).body.data.external_id;
    const v1 = (
      await gw.request('POST', `/p1/companies/${other}/channels`, {
        json: { provider: 'chat_b_personal', phone: '79161234567' },
      })
    ).body.data.external_id;
    const code = await gw.request('POST', `/p1/companies/${other}/channels/${v1}/request_code`, { json: {} });
    expect(code.body).toMatchObject({ code_length: 5, status: 'ok' });
    expect(
      (
        await gw.request('POST', `/p1/companies/${other}/channels/${v1}/confirm`, {
          json: { confirmation_type: 'code', code: 424242 },
        })
      ).body,
    ).toEqual({ result: 'ok', state: 'enabled' });
    await gw.request('POST', `/api/p2/companies/${other}/auths`, {
      json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 't' },
    });
    await eventually(
      'templates synced',
      async () =>
        (await gw.request('GET', `/api/p2/biz_templates?company_ids[]=${other}`)).body.biz_templates.length === 2,
      5_000,
    );
  });

  it('produces group traffic: two members in one group conversation, and a reply into it goes sent → delivered → read', async () => {
    const created = await gw.request('POST', `/api/p2/companies/${company}/auths`, { json: { provider: 'chat_d' } });
    const id = created.body.auth.id as number;
    await eventually('the QR is scanned', async () => (await authState(company, id)) === 'enabled', 5_000);
    const inject = (json: Record<string, unknown>) =>
      gw.request('POST', `/admin/sandbox/channels/${id}/messages`, { ...admin, json });
    const group = { id: 'team@g.us', name: 'Team' };
    const first = await inject({ from: '491701234567', name: 'Jonas', text: 'Morgen?', group });
    // Without its name the group keeps the one it has.
    const second = await inject({ from: '491709876543', name: 'Olga', text: 'Ja', group: { id: group.id } });
    expect([first.status, second.status]).toEqual([201, 201]);
    const conversationId = first.body.message.conversation_id as number;
    expect(second.body.message.conversation_id).toBe(conversationId);
    const conversation = (await gw.request('GET', `/api/p2/conversations/${conversationId}?company_id=${company}`)).body
      .conversation;
    expect(conversation).toMatchObject({ sender_name: 'Team', sender_external_id: 'team@g.us', group: true });
    expect(conversation.participants.map((p: { name: string; phone: string | null }) => [p.name, p.phone])).toEqual([
      ['Jonas', '491701234567'],
      ['Olga', '491709876543'],
    ]);
    expect([first.body.message.contact_id, second.body.message.contact_id]).toEqual(
      conversation.participants.map((p: { id: number }) => p.id),
    );
    expect(failingFields(await inject({ from: '4917', text: 'x', group: { id: '' } }))).toEqual(['group/id']);
    expect(failingFields(await inject({ from: '4917', text: 'x', group: { id: 'g', title: 'T' } }))).toEqual(['group']);

    const reply = await gw.request('POST', `/api/p2/conversations/${conversationId}/messages`, {
      json: { company_id: company, text: 'Bis morgen' },
    });
    expect(reply.status).toBe(201);
    await eventually(
      'the reply is read',
      async () => (await messageStatus(conversationId, reply.body.message.id)) === 'read',
      5_000,
    );
  });

  it('without the sandbox there is no sandbox route', async () => {
    const plain = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
    try {
      expectErrorShape(
        await plain.request('POST', '/admin/sandbox/channels/1/messages', { ...admin, json: { from: '1', text: 'x' } }),
        404,
        'not_found',
      );
    } finally {
      await plain.close();
    }
  });
});
