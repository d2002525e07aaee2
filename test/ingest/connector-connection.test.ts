// Connector connection events through HTTP alone (docs/connector-protocol.md, "Events"; docs/decisions.md,
// "Connector news"): qr, code, pages, oauth, state and notice write auth.update and, for a channel made
// through v1, the v1 channel payloads; a redelivery and a repeated message change nothing. What they emit
// arrives as webhooks (test/helpers/company-events.ts) and what a channel holds is read through the v2
// API, so this file runs against a cluster too (vitest.cluster.config.ts).
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readQr } from '../helpers/qr.js';
import type { TestGateway } from '../helpers/gateway.js';
import { connectorHeaders, fixture } from '../helpers/callbacks.js';
import type { CompanyEvents } from '../helpers/company-events.js';
import { connectorHelpers, startConnectorGateway, type ConnectorGateway } from './connector-fixtures.js';

let gw: TestGateway;
let company: ConnectorGateway;
let events: CompanyEvents;
let companyId: number;
let v1Channel: number;
let v1Secret: string;
let v2Channel: number;
let v2Secret: string;
let close: () => Promise<void>;

beforeAll(async () => {
  company = await startConnectorGateway();
  ({ gw, events, companyId, v1Channel, v1Secret, v2Channel, v2Secret, close } = company);
});
afterAll(() => close?.());

const { before, stored, conversationOf, post, postBody } = connectorHelpers(() => company);
async function auth(id: number) {
  return (await gw.request('GET', `/api/p2/companies/${companyId}/auths/${id}`)).body.auth;
}

describe('connector protocol: connection flow', () => {
  // pact-im/api-doc _includes/v1_webhooks.md ("Whatsapp: new QR-code") and content/en/v2/auths/confirm-auth.md (QR authentication).
  it('qr, code and pages: auth.update carrying them (the QR as a PNG data URL), plus the v1 payload for a v1 channel (the QR as a base64 PNG)', async () => {
    const start = await before();
    expect((await post('connector/qr')).status).toBe(200);
    expect((await post('connector/code')).status).toBe(200);
    expect((await post('connector/pages')).status).toBe(200);
    expect((await post('connector/oauth')).status).toBe(200);
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual([
      'auth.update',
      'channel.qr_code',
      'auth.update',
      'channel.code',
      'auth.update',
      'channel.pages',
      'auth.update',
    ]);
    const current = await auth(v1Channel);
    // The pages are stored by the pages event: the auth objects before it have none.
    expect(current.pages.map((p: { external_id: string; enabled: boolean }) => [p.external_id, p.enabled])).toEqual(
      JSON.parse(fixture('connector/pages')).pages.map((p: { id: string }) => [p.id, false]),
    );
    const payload = JSON.parse(fixture('connector/qr')).qr;
    const v2Qr = (emitted[0]!.body.object as { qr: string }).qr;
    expect(emitted[0]!.body.object).toEqual({
      ...current,
      pages: null,
      qr: expect.stringMatching(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/),
    });
    expect(readQr(v2Qr)).toBe(payload);
    const base = { entity: 'channel', company_id: companyId, channel_id: v1Channel, channel_type: 'chat_a' };
    expect(emitted[1]!.body).toEqual({
      id: emitted[1]!.id,
      created_at: emitted[1]!.created_at,
      type: 'qr_code',
      event: 'new',
      ...base,
      data: v2Qr.slice('data:image/png;base64,'.length),
    });
    expect(readQr(Buffer.from(emitted[1]!.body.data as string, 'base64'))).toBe(payload);
    expect(emitted[2]!.body.object).toEqual({ ...current, pages: null, code: 'K7QX-2M4P' });
    expect(emitted[3]!.body).toMatchObject({ type: 'code', event: 'new', ...base, data: 'K7QX-2M4P' });
    expect(emitted[5]!.body).toMatchObject({
      type: 'pages',
      event: 'new',
      ...base,
      data: JSON.parse(fixture('connector/pages')).pages,
    });
    expect(emitted[6]!.body.object).toEqual({
      ...current,
      oauth_provider_url: JSON.parse(fixture('connector/oauth')).oauth_provider_url,
    });
  });

  // pact-im/api-doc _includes/v1_webhooks.md ("channel connected sucessfuly", "channel disabled").
  it('state moves the channel and writes auth.update (and the v1 system notice: authorized, disabled); a repeat changes nothing', async () => {
    let start = await before();
    expect((await post('connector/state-enabled')).status).toBe(200);
    let current = await auth(v1Channel);
    expect(current.state).toBe('enabled');
    let emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['auth.update', 'channel.state']);
    expect(emitted[0]!.body.object).toEqual(current);
    const notice = emitted[1]!.body as { data: { date: string; date_timestamp: number; timestamp: number } };
    expect(emitted[1]!.body).toEqual({
      id: emitted[1]!.id,
      entity: 'channel',
      type: 'system',
      severity: 'information',
      company_id: companyId,
      channel_id: v1Channel,
      channel_type: 'chat_a',
      created_at: emitted[1]!.created_at,
      data: {
        message: 'authorized',
        date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/),
        date_timestamp: expect.any(Number),
        timestamp: expect.any(Number),
        details: { entity: 'channel', entity_id: v1Channel },
        reason: 'session connected',
      },
    });
    expect(notice.data.date_timestamp).toBe(Math.floor(Date.parse(emitted[1]!.created_at) / 1000));
    expect(notice.data.date).toBe(`${emitted[1]!.created_at.slice(0, 19).replace('T', ' ')} UTC`);

    start = await before();
    expect((await post('connector/state-enabled')).status).toBe(200);
    expect(await events.since(start)).toEqual([]);

    expect((await post('connector/state-disabled')).status).toBe(200);
    current = await auth(v1Channel);
    expect(current.state).toBe('disabled');
    emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['auth.update', 'channel.state']);
    expect(emitted[1]!.body).toMatchObject({
      type: 'system',
      severity: 'critical',
      data: { message: 'disabled', reason: 'logged out on the phone' },
    });
  });

  // pact-im/api-doc _includes/v1_webhooks.md: phone offline, phone online, unavailable, trying_resume_work, synchronized.
  it('session notices become the documented v1 system notices, the channel state unchanged; a v2 channel gets none', async () => {
    const start = await before();
    const notices = [
      ['phone_offline', 'phone offline'],
      ['phone_online', 'phone online'],
      ['unavailable', 'unavailable'],
      ['trying_resume_work', 'trying_resume_work'],
      ['synchronized', 'synchronized'],
    ] as const;
    const stateBefore = (await auth(v1Channel)).state;
    for (const [notice] of notices) {
      expect((await postBody({ ...JSON.parse(fixture('connector/notice')), notice })).status).toBe(200);
    }
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(notices.map(() => 'channel.state'));
    expect(emitted.map((e) => [e.body.type, e.body.severity, (e.body.data as { message: string }).message])).toEqual(
      notices.map(([, text]) => ['system', 'critical', text]),
    );
    expect(emitted[0]!.body.data).toMatchObject({
      date: '2025-06-08 21:00:00 UTC',
      date_timestamp: 1_749_416_400,
      details: { entity: 'channel', entity_id: v1Channel },
    });
    expect((await auth(v1Channel)).state).toBe(stateBefore);
    expect((await postBody({ type: 'notice', notice: 'phone_off' })).status).toBe(422);
    const v2Start = await before();
    expect((await postBody({ type: 'notice', notice: 'phone_offline' }, v2Channel, v2Secret)).status).toBe(200);
    expect(await events.since(v2Start)).toEqual([]);
  });

  it('a v2 channel gets the auth events only', async () => {
    const start = await before();
    expect((await post('connector/qr', v2Channel, v2Secret)).status).toBe(200);
    expect((await post('connector/state-enabled', v2Channel, v2Secret)).status).toBe(200);
    const emitted = await events.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['auth.update', 'auth.update']);
    expect(emitted[1]!.body.object).toEqual(await auth(v2Channel));
  });

  it('a redelivered event (same webhook-id) changes nothing', async () => {
    const start = await before();
    expect((await post('connector/code', v2Channel, v2Secret, 'msg_code_1')).status).toBe(200);
    expect((await post('connector/code', v2Channel, v2Secret, 'msg_code_1')).status).toBe(200);
    expect((await events.since(start)).map((e) => e.name)).toEqual(['auth.update']);
  });

  it('a message event is deduplicated by its message id, under any webhook-id', async () => {
    const start = await before();
    const state = await stored();
    expect((await post('connector/message-text', v2Channel, v2Secret, 'msg_text_1')).status).toBe(200);
    const message = (await stored()).messages.find((m) => !state.messages.some((old) => old.id === m.id));
    const after = await stored();
    // One conversation and one message more, nothing else changed.
    expect(after.conversations).toEqual([...state.conversations, await conversationOf(message)]);
    expect(after.messages).toEqual([...state.messages, message]);
    expect((await post('connector/message-text', v2Channel, v2Secret, 'msg_text_1')).status).toBe(200);
    expect((await post('connector/message-text', v2Channel, v2Secret, 'msg_text_2')).status).toBe(200);
    expect(await stored()).toEqual(after);
    expect((await events.since(start)).map((e) => e.name)).toEqual(['conversation.create', 'message.create']);
  });

  it('is signed as the standardwebhooks package signs', () => {
    // The helper signs with the package itself; verify the pair round-trips as a sanity check.
    const body = fixture('connector/qr');
    const headers = connectorHeaders(body, v1Secret, 'msg_x');
    expect(new Webhook(v1Secret).verify(body, headers)).toEqual(JSON.parse(body));
  });
});
