// What the test/ingest/connector-*.test.ts files share (docs/connector-protocol.md): the gateway a file
// starts, a company on it with one connector channel made through v1 and one through v2, its events
// observed as webhooks (test/helpers/company-events.ts), and the helpers that post connector events and
// read back what they stored through the v2 API alone, so every file stays black-box and runs against
// the cluster too.
import { expect } from 'vitest';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { callbackInfo, fixture, postConnector } from '../helpers/callbacks.js';
import { observeCompanyEvents, type CompanyEvents } from '../helpers/company-events.js';
import { messagingState } from '../helpers/company-messages.js';

export interface ConnectorCompany {
  gw: TestGateway;
  events: CompanyEvents;
  companyId: number;
  /** chat_a created through v1: also gets the v1 channel payloads. */
  v1Channel: number;
  v1Secret: string;
  /** chat_d created through v2: auth events only. */
  v2Channel: number;
  v2Secret: string;
}

/**
 * Creates the company and its two channels on `gw` and starts observing the company's events; checks
 * the callback info the operator sees for the v1 channel.
 */
async function openConnectorCompany(gw: TestGateway): Promise<ConnectorCompany> {
  const companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Connector Co' } })).body.data
    .external_id;
  const events = await observeCompanyEvents(gw, companyId);
  const v1Channel = (await gw.request('POST', `/p1/companies/${companyId}/channels`, { json: { provider: 'chat_a' } }))
    .body.data.external_id;
  const v2Channel = (await gw.request('POST', `/api/p2/companies/${companyId}/auths`, { json: { provider: 'chat_d' } }))
    .body.auth.id;
  const info = await callbackInfo(gw, v1Channel);
  expect(info).toEqual({
    url: `${gw.baseUrl}/callbacks/chat_a/${v1Channel}`,
    provider: 'chat_a',
    family: 'connector',
    secrets: { signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/), scheme: 'standard-webhooks' },
  });
  const v1Secret = info.secrets.signing_secret!;
  const v2Secret = (await callbackInfo(gw, v2Channel)).secrets.signing_secret!;
  return { gw, events, companyId, v1Channel, v1Secret, v2Channel, v2Secret };
}

/** What a test file's beforeAll starts, and `close`, its afterAll. */
export interface ConnectorGateway extends ConnectorCompany {
  close: () => Promise<void>;
}

/** A file's beforeAll: a gateway sending to local receivers, and the company with its two channels. */
export async function startConnectorGateway(): Promise<ConnectorGateway> {
  const gw = await startTestGateway(TO_RECEIVERS);
  const company = await openConnectorCompany(gw);
  const close = async () => {
    await gw.close();
    await company.events.close();
  };
  return { ...company, close };
}

/**
 * The helpers that post to or read the company: `company` answers the one the test file's beforeAll
 * opened, so a file takes them once, at its top.
 */
export function connectorHelpers(company: () => ConnectorCompany) {
  const before = () => company().events.count();
  const stored = () => messagingState(company().gw, company().companyId);
  const conversationOf = async (message: { conversation_id: number }) => {
    const { gw, companyId } = company();
    return (await gw.request('GET', `/api/p2/conversations/${message.conversation_id}?company_id=${companyId}`)).body
      .conversation;
  };
  /** Posts `body` to the v1 channel (chat_a), or to the v2 channel (chat_d) when given it and its secret. */
  const postTo = (body: string, channel?: number, secret?: string, id?: string) => {
    const { gw, v1Channel, v1Secret } = company();
    const to = channel ?? v1Channel;
    return postConnector(gw, to === v1Channel ? 'chat_a' : 'chat_d', to, body, secret ?? v1Secret, id);
  };
  /** Posts the recorded event `name` (test/fixtures/callbacks/<name>.json). */
  const post = (name: string, channel?: number, secret?: string, id?: string) =>
    postTo(fixture(name), channel, secret, id);
  const postBody = (body: unknown, channel?: number, secret?: string) => postTo(JSON.stringify(body), channel, secret);
  return { before, stored, conversationOf, post, postBody };
}
