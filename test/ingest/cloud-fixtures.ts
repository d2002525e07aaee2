// What the test/ingest/cloud-*.test.ts files share: the gateway each file starts (to local receivers
// and a fake provider) with a company that has one cloud-style channel, its events observed as
// webhooks from before the channel exists; the outgoing message the recorded payloads are about; and
// the check that the channel's callback secrets reach no v1/v2 answer, no event and no log line,
// which every file runs over all it did, as a test or on closing (docs/design.md section 5: shown to
// operators only).
import { expect } from 'vitest';
import { callbackInfo } from '../helpers/callbacks.js';
import { observeCompanyEvents, type CompanyEvents } from '../helpers/company-events.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';

/** The outgoing message the recorded replies and statuses are about. */
export const OUTGOING_ID = 'bmid.OUTGOING00000000000000000000000001';

/** What a file's beforeAll starts: a gateway, and a company with one cloud-style channel; `close`, its afterAll. */
export interface CloudGateway {
  gw: TestGateway;
  provider: FakeProvider;
  events: CompanyEvents;
  companyId: number;
  channelId: number;
  appSecret: string;
  verifyToken: string;
  close: () => Promise<void>;
}

/**
 * A file's beforeAll: the fake provider, the gateway sending to it, the company, its observer, its
 * channel. With `checkSecretsOnClose`, `close` first runs expectSecretsNeverShown, then closes it all,
 * whatever it found.
 */
export async function startCloudGateway({ checkSecretsOnClose = false } = {}): Promise<CloudGateway> {
  const provider = await new FakeProvider().start();
  const gw = await startTestGateway({ ...TO_RECEIVERS, ...provider.env() });
  const companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Cloud Co' } })).body.data.external_id;
  // Subscribed before the channel exists: its auth.create is among the events the secrets never reach.
  const events = await observeCompanyEvents(gw, companyId);
  const channelId = (
    await gw.request('POST', `/p1/companies/${companyId}/channels`, {
      json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 'EAAG-cloud-token' },
    })
  ).body.data.external_id;
  const info = await callbackInfo(gw, channelId);
  const cloud: CloudGateway = {
    gw,
    provider,
    events,
    companyId,
    channelId,
    appSecret: info.secrets.app_secret!,
    verifyToken: info.secrets.verify_token!,
    close: async () => {
      try {
        if (checkSecretsOnClose) await expectSecretsNeverShown(cloud);
      } finally {
        await gw.close();
        await events.close();
        await provider.close();
      }
    },
  };
  return cloud;
}

/**
 * The channel's app secret and verify token are in no v1/v2 answer about the company, no event it
 * emitted and no log line the gateway wrote so far: run after everything a file did.
 */
export async function expectSecretsNeverShown({
  gw,
  events,
  companyId,
  channelId,
  appSecret,
  verifyToken,
}: CloudGateway): Promise<void> {
  const texts = [
    (await gw.request('GET', `/p1/companies/${companyId}/channels`)).text,
    (await gw.request('GET', `/api/p2/companies/${companyId}/auths`)).text,
    (await gw.request('GET', `/api/p2/companies/${companyId}/auths/${channelId}`)).text,
    JSON.stringify(await events.since(0)),
  ];
  for (const text of texts) {
    expect(text).not.toContain(appSecret);
    expect(text).not.toContain(verifyToken);
  }
  expect(gw.logText()).not.toContain(appSecret);
  expect(gw.logText()).not.toContain(verifyToken);
}
