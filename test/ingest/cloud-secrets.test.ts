// Cloud-style callback secrets through HTTP alone: the callback address and secrets shown to operators
// only, the subscribe handshake answered for the channel's verify token, the secrets in no v1/v2
// answer, event or log line, and a configured app secret that signs for every number applying only
// the channel's own number's changes. docs/design.md section 5; the events arrive as webhooks
// (test/helpers/company-events.ts), so this file runs against a cluster too (vitest.cluster.config.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { callbackInfo, fixture, postCloud } from '../helpers/callbacks.js';
import { messagingState } from '../helpers/company-messages.js';
import { expectSecretsNeverShown, startCloudGateway, type CloudGateway } from './cloud-fixtures.js';

let cloud: CloudGateway;
let gw: TestGateway;
let channelId: number;
let verifyToken: string;
let close: () => Promise<void>;

beforeAll(async () => {
  cloud = await startCloudGateway();
  ({ gw, channelId, verifyToken, close } = cloud);
});
afterAll(() => close?.());

describe('cloud-style callbacks: admin view and handshake', () => {
  it('shows the callback address and secrets to operators only', async () => {
    const info = await callbackInfo(gw, channelId);
    expect(info).toEqual({
      url: `${gw.baseUrl}/callbacks/chat_a_business/${channelId}`,
      provider: 'chat_a_business',
      family: 'cloud',
      secrets: {
        app_secret: expect.stringMatching(/^[0-9a-f]{64}$/),
        app_secret_source: 'channel',
        verify_token: expect.stringMatching(/^[0-9a-f]{32}$/),
        signature_header: 'x-hub-signature-256',
      },
    });
    const noToken = await gw.request('GET', `/admin/channels/${channelId}/callback`, { token: null });
    expectErrorShape(noToken, 401, 'unauthorized');
    const missing = await gw.request('GET', '/admin/channels/999999/callback', {
      token: null,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expectErrorShape(missing, 404, 'not_found');
  });

  it('answers the subscribe handshake with the challenge as text, 403 for a wrong token, 422 for a wrong mode', async () => {
    const ok = await gw.request(
      'GET',
      `/callbacks/chat_a_business/${channelId}?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=1158201444`,
      { token: null },
    );
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain/);
    expect(ok.text).toBe('1158201444');
    const wrong = await gw.request(
      'GET',
      `/callbacks/chat_a_business/${channelId}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`,
      { token: null },
    );
    expectErrorShape(wrong, 403, 'forbidden');
    const mode = await gw.request(
      'GET',
      `/callbacks/chat_a_business/${channelId}?hub.mode=unsubscribe&hub.verify_token=${verifyToken}&hub.challenge=1`,
      { token: null },
    );
    expectErrorShape(mode, 422, 'validation_failed');
    expectErrorShape(
      await gw.request(
        'GET',
        `/callbacks/chat_a_business/999999?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=1`,
        { token: null },
      ),
      404,
      'not_found',
    );
  });
});

// After the handshake above, which sent the verify token in its query: it reached no log line either.
describe('callback secrets', () => {
  it('are never shown by the v1/v2 API nor written to the log', async () => {
    await expectSecretsNeverShown(cloud);
  });
});

// That the channel's own secret stops counting once one is configured: callback-settings.test.ts.
describe('GATEWAY_CHAT_A_BUSINESS_APP_SECRET', () => {
  it("applies only the changes about the channel's own phone-number id when the channel knows it", async () => {
    const configured = 'operator-app-secret-0123456789abcdef';
    const other = await startTestGateway({
      ...TO_RECEIVERS,
      GATEWAY_CHAT_A_BUSINESS_APP_SECRET: configured,
    });
    try {
      const company = (await other.request('POST', '/p1/companies', { json: { name: 'Two numbers' } })).body.data
        .external_id;
      const create = (vendorChannelId: string) =>
        other.request('POST', `/p1/companies/${company}/channels`, {
          json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 't', vendor_channel_id: vendorChannelId },
        });
      const mine = (await create('106540352242922')).body.data.external_id;
      // The company has this channel alone: its messages are the channel's.
      const messages = async () => (await messagingState(other, company)).messages.length;

      // The fixture is about phone-number id 106540352242922: posted to a channel of that number, it counts.
      expect((await postCloud(other, mine, fixture('cloud/text'), configured)).status).toBe(200);
      expect(await messages()).toBe(1);

      // The same signed body about another number, posted at this channel's address, changes nothing.
      const foreign = fixture('cloud/text')
        .replaceAll('106540352242922', '999000111222333')
        .replaceAll('bmid.', 'bmid.other.');
      expect((await postCloud(other, mine, foreign, configured)).status).toBe(200);
      expect(await messages()).toBe(1);
    } finally {
      await other.close();
    }
  });
});
