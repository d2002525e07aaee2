// Sending through the cloud-style API (chat_a_business, docs/decisions.md "Provider connectors"):
// the call a text and an image make, the sent -> delivered -> read updates and a status that overtakes
// the send outcome, retries of transient failures within GATEWAY_PROVIDER_RETRY_SCHEDULE, permanent
// refusals, and send_to_crm false, against a local fake provider.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackInfo, checkedEvents } from '../helpers/callbacks.js';
import { emittedEvents } from '../helpers/events.js';
import type { FakeProvider } from '../helpers/fake-provider.js';
import type { TestGateway } from '../helpers/gateway.js';
import { seedConversation } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';
import { sendHelpers, startSendGateway } from './send-fixtures.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

let gw: TestGateway;
let fake: FakeProvider;
let companyId: number;
let close: () => Promise<void>;
const { store, message, send, updatesOf } = sendHelpers(() => ({ gw, companyId }));

beforeAll(async () => {
  ({ gw, fake, companyId, close } = await startSendGateway());
});
afterAll(() => close?.());

describe('cloud-style sender (chat_a_business)', () => {
  let channelId: number;
  let conversationId: number;
  let appSecret: string;

  beforeAll(async () => {
    const res = await gw.request('POST', `/api/p2/companies/${companyId}/auths`, {
      json: {
        provider: 'chat_a_business',
        hosting_type: 'cloud',
        token: 'EAAG-cloud-token',
        vendor_channel_id: 'PN1',
        vendor_client_id: 'WABA1',
      },
    });
    expect(res.status).toBe(201);
    channelId = res.body.auth.id;
    appSecret = (await callbackInfo(gw, channelId)).secrets.app_secret!;
    conversationId = seedConversation(gw, { companyId, channelId }, { sender: '491701234567' }).conversationId;
  });

  it('sends text with the bearer token, records the provider id, then moves sent → delivered → read with an update each', async () => {
    const before = emittedEvents(store()).length;
    const calls = fake.callsOf('cloud', '/messages').length;
    const id = await send(conversationId, { text: 'Your order has shipped' });
    await eventually('the provider took the message', () => message(id).external_id !== null);
    const [call] = fake.callsOf('cloud', '/messages').slice(calls);
    expect(call).toMatchObject({ method: 'POST', path: '/v21.0/PN1/messages' });
    expect(call!.headers.authorization).toBe('Bearer EAAG-cloud-token');
    expect(call!.body).toEqual({
      messaging_product: 'chat_a',
      recipient_type: 'individual',
      to: '491701234567',
      type: 'text',
      text: { body: 'Your order has shipped', preview_url: false },
    });
    const externalId = message(id).external_id!;
    expect(externalId).toMatch(/^wamid\.FAKE\d+$/);

    expect(await fake.cloudStatus(gw.baseUrl, channelId, appSecret, externalId, 'delivered')).toBe(200);
    expect(await fake.cloudStatus(gw.baseUrl, channelId, appSecret, externalId, 'read')).toBe(200);
    expect(message(id).status).toBe('read');
    expect(updatesOf(id, before)).toEqual([
      { status: 'sent', external_id: externalId },
      { status: 'delivered', external_id: externalId },
      { status: 'read', external_id: externalId },
    ]);
    expect(gw.logText()).not.toContain('EAAG-cloud-token');
  });

  it('a status that overtakes the send outcome is kept and applied when the outcome names its message', async () => {
    const before = emittedEvents(store()).length;
    expect(await fake.cloudStatus(gw.baseUrl, channelId, appSecret, 'wamid.EARLY1', 'delivered')).toBe(200);
    expect(emittedEvents(store()).length).toBe(before);
    fake.script('cloud', {
      status: 200,
      body: {
        messaging_product: 'chat_a',
        contacts: [{ input: '491701234567', wa_id: '491701234567' }],
        messages: [{ id: 'wamid.EARLY1' }],
      },
    });
    const id = await send(conversationId, { text: 'Fast provider' });
    await eventually('the message is delivered', () => message(id).status === 'delivered');
    expect(updatesOf(id, before)).toEqual([
      { status: 'sent', external_id: 'wamid.EARLY1' },
      { status: 'delivered', external_id: 'wamid.EARLY1' },
    ]);
    expect(
      store().db.prepare("SELECT count(*) AS n FROM early_statuses WHERE external_id = 'wamid.EARLY1'").get(),
    ).toEqual({ n: 0 });
  });

  /**
   * Sends a message behind those before it and waits until the provider took it: a channel sends one
   * job at a time, in order, so every call for an earlier message was made before it.
   */
  async function sendMarker(): Promise<void> {
    const id = await send(conversationId, { text: 'Marker' });
    await eventually('the provider took the marker', () => message(id).external_id !== null);
  }
  const textsSent = (since: number) =>
    fake
      .callsOf('cloud', '/messages')
      .slice(since)
      .map((call) => (call.body as { text?: { body: string } }).text?.body);

  it('a provider answering 500 then 200 is called exactly once more, and the message is sent once', async () => {
    const before = emittedEvents(store()).length;
    const calls = fake.callsOf('cloud', '/messages').length;
    fake.script('cloud', { status: 500, body: { error: { code: 2, message: 'Service temporarily unavailable' } } });
    const id = await send(conversationId, { text: 'Second try' });
    await eventually('the provider took the message', () => message(id).external_id !== null);
    await sendMarker();
    expect(textsSent(calls)).toEqual(['Second try', 'Second try', 'Marker']);
    expect(updatesOf(id, before)).toEqual([{ status: 'sent', external_id: message(id).external_id }]);
  });

  it('a permanent refusal ends in error with the reason in details', async () => {
    const before = emittedEvents(store()).length;
    const calls = fake.callsOf('cloud', '/messages').length;
    fake.script('cloud', {
      status: 400,
      body: { error: { code: 131026, message: 'Message undeliverable: the recipient is not on the network' } },
    });
    const id = await send(conversationId, { text: 'Nobody home' });
    await eventually('the message is in error', () => message(id).status === 'error');
    await sendMarker();
    expect(textsSent(calls)).toEqual(['Nobody home', 'Marker']);
    expect(message(id).external_id).toBeNull();
    expect(JSON.parse(message(id).details!)).toEqual({
      errors: [{ code: 'provider_131026', title: 'Message undeliverable: the recipient is not on the network' }],
    });
    const updates = checkedEvents(store(), before).filter(
      (e) => e.name === 'message.update' && (e.body.object as { id: number }).id === id,
    );
    expect(updates).toHaveLength(1);
    expect(updates[0]!.body.object).toMatchObject({
      id,
      status: 'error',
      details: { errors: [{ code: 'provider_131026' }] },
    });
  });

  it('a message sent with send_to_crm false is sent, and its progress is not announced either', async () => {
    const before = emittedEvents(store()).length;
    const id = await send(conversationId, { text: 'Quietly', send_to_crm: false });
    await eventually('the provider took the message', () => message(id).external_id !== null);
    expect(
      checkedEvents(store(), before).filter((e) => (e.body.object as { id?: number } | undefined)?.id === id),
    ).toEqual([]);
  });

  it('transient failures past the schedule end in error after every try', async () => {
    const calls = fake.callsOf('cloud', '/messages').length;
    const busy = { status: 503, body: { error: { code: 2, message: 'busy' } } };
    fake.script('cloud', busy, busy, busy);
    const id = await send(conversationId, { text: 'Never gets through' });
    await eventually('the message is in error', () => message(id).status === 'error');
    expect(fake.callsOf('cloud', '/messages').length - calls).toBe(3);
    expect(JSON.parse(message(id).details!).errors[0]).toEqual({
      code: 'provider_2',
      title: 'busy Gave up after 3 tries.',
    });
  });

  it('sends an uploaded image by the URL of the attachment, with the text as caption', async () => {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(path.join(FIXTURES, 'image.png'))]), 'image.png');
    const upload = await fetch(`${gw.baseUrl}/api/p2/companies/${companyId}/attachments`, {
      method: 'POST',
      headers: { 'x-private-api-token': gw.token },
      body: form,
    });
    const attachment = ((await upload.json()) as { attachment: { id: number; attachment_url: string } }).attachment;
    const calls = fake.callsOf('cloud', '/messages').length;
    const id = await send(conversationId, { text: 'The label', attachment_ids: [attachment.id] });
    await eventually('the provider took the message', () => message(id).external_id !== null);
    const call = fake.callsOf('cloud', '/messages')[calls]!;
    expect(call.body).toEqual({
      messaging_product: 'chat_a',
      recipient_type: 'individual',
      to: '491701234567',
      type: 'image',
      image: { link: attachment.attachment_url, caption: 'The label' },
    });
    // The link is a real, fetchable address of the gateway.
    expect((await fetch(attachment.attachment_url)).status).toBe(200);
  });
});
