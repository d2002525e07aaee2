// Cloud-style callbacks through HTTP alone, the statuses of outgoing messages: sent through the v2 API
// to the fake provider, then moved by the provider's status callbacks only forward, failed ones
// terminal with their reason, unknown ones ignored; read back through the v2 API, the events arriving
// as webhooks (test/helpers/company-events.ts), so this file runs against a cluster too
// (vitest.cluster.config.ts). docs/design.md section 5.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { callbackInfo, fixture, messageOfEvent, postCloud } from '../helpers/callbacks.js';
import { observeCompanyEvents, type CompanyEvents } from '../helpers/company-events.js';
import { conversationWith, messagingState } from '../helpers/company-messages.js';
import type { FakeProvider } from '../helpers/fake-provider.js';
import { eventually } from '../helpers/wait.js';
import { OUTGOING_ID, startCloudGateway } from './cloud-fixtures.js';

let gw: TestGateway;
let provider: FakeProvider;
let close: () => Promise<void>;

/** The phone-number id the recorded payloads are about. */
const PHONE_NUMBER_ID = '106540352242922';

// The file's own company and channel are only what the sweep is about: no callback secret reaches an
// answer, an event or the log here either (cloud-secrets.test.ts proves it of its own).
beforeAll(async () => {
  ({ gw, provider, close } = await startCloudGateway({ checkSecretsOnClose: true }));
});
afterAll(() => close?.());

describe('cloud-style callbacks: statuses', () => {
  // A company of its own, whose channel knows the phone-number id the recorded payloads are about:
  // the gateway sends on it (to the fake provider), which gives the statuses a message to move.
  let company: number;
  let channel: number;
  let secret: string;
  let companyEvents: CompanyEvents;
  let conversation: number;

  beforeAll(async () => {
    company = (await gw.request('POST', '/p1/companies', { json: { name: 'Cloud Sending Co' } })).body.data.external_id;
    companyEvents = await observeCompanyEvents(gw, company);
    const created = await gw.request('POST', `/p1/companies/${company}/channels`, {
      json: {
        provider: 'chat_a_business',
        hosting_type: 'cloud',
        token: 'EAAG-cloud-token',
        vendor_channel_id: PHONE_NUMBER_ID,
      },
    });
    expect(created.status, created.text).toBe(201);
    channel = created.body.data.external_id;
    secret = (await callbackInfo(gw, channel)).secrets.app_secret!;
    expect((await postCloud(gw, channel, fixture('cloud/text'), secret)).status).toBe(200);
    conversation = (await conversationWith(gw, company, '16505551234')).id;
  });
  afterAll(() => companyEvents.close());

  /** An outgoing message the provider accepted under `externalId` (sent), sent through the API; answers its reader. */
  async function sent(externalId: string): Promise<() => Promise<any>> {
    provider.script('cloud', {
      status: 200,
      body: { messaging_product: 'chat_a', contacts: [], messages: [{ id: externalId }] },
    });
    const created = await gw.request('POST', `/api/p2/conversations/${conversation}/messages`, {
      json: { company_id: company, text: 'Your order has shipped' },
    });
    expect(created.status, created.text).toBe(201);
    const path = `/api/p2/conversations/${conversation}/messages/${created.body.message.id}?company_id=${company}`;
    const read = async () => (await gw.request('GET', path)).body.message;
    await eventually(`message ${created.body.message.id} sent as ${externalId}`, async () => {
      const message = await read();
      return message.status === 'sent' && message.external_id === externalId;
    });
    return read;
  }
  const postStatus = (body: string) => postCloud(gw, channel, body, secret);

  it('moves an outgoing message only forward, whatever order the statuses arrive in', async () => {
    const read = await sent(OUTGOING_ID);
    const status = (name: string) => postStatus(fixture(`cloud/status-${name}`));

    let start = await companyEvents.count();
    expect((await status('delivered')).status).toBe(200);
    expect((await read()).status).toBe('delivered');
    expect(
      (await companyEvents.since(start)).map((e) => [e.name, (e.body.object as { status: string }).status]),
    ).toEqual([['message.update', 'delivered']]);

    start = await companyEvents.count();
    expect((await status('sent')).status).toBe(200); // late: nothing
    expect((await status('delivered')).status).toBe(200); // duplicate: nothing
    expect((await read()).status).toBe('delivered');
    expect(await companyEvents.since(start)).toEqual([]);

    expect((await status('read')).status).toBe(200);
    start = await companyEvents.count();
    expect((await status('delivered')).status).toBe(200);
    expect((await status('failed')).status).toBe(200);
    const final = await read();
    expect(final).toMatchObject({ status: 'read', details: null });
    expect(await companyEvents.since(start)).toEqual([]);
  });

  it('turns failed into error with the reason in details, and error is terminal', async () => {
    const failedBody = fixture('cloud/status-failed').replace(OUTGOING_ID, 'bmid.OUTGOING-FAIL');
    const read = await sent('bmid.OUTGOING-FAIL');
    const start = await companyEvents.count();
    expect((await postStatus(failedBody)).status).toBe(200);
    expect((await postStatus(fixture('cloud/status-read').replace(OUTGOING_ID, 'bmid.OUTGOING-FAIL'))).status).toBe(
      200,
    );
    const message = await read();
    expect(message.status).toBe('error');
    expect(message.details).toEqual({
      errors: [JSON.parse(failedBody).entry[0].changes[0].value.statuses[0].errors[0]],
    });
    const emitted = await companyEvents.since(start);
    expect(emitted.map((e) => e.name)).toEqual(['message.update']);
    expect(messageOfEvent(emitted[0]!.body.object)).toEqual(message);
  });

  it('answers 200, stores nothing and emits nothing for a status of an unknown message', async () => {
    const stored = await messagingState(gw, company);
    const start = await companyEvents.count();
    expect((await postStatus(fixture('cloud/status-read').replace(OUTGOING_ID, 'bmid.NEVER-SEEN'))).status).toBe(200);
    expect(await messagingState(gw, company)).toEqual(stored);
    expect(await companyEvents.since(start)).toEqual([]);
  });
});
