// What the test/connectors/groups-*.test.ts files share: the gateway, fake provider and receiver a file
// starts, the group and member a connector callback names, the body of a group message callback, and
// the helpers that create a company receiving both webhook versions and an enabled connector channel
// on them.
import { expect } from 'vitest';
import type { FakeProvider } from '../helpers/fake-provider.js';
import type { TestGateway } from '../helpers/gateway.js';
import type { Receiver } from '../helpers/receiver.js';
import { newCompany } from '../helpers/seed.js';
import { startCompatV1Gateway } from './compat-v1-fixtures.js';

export type Hook = Record<string, any>;
export const GROUP = '120363148147828952@g.us';
export const JONAS = { id: '491701234567@c.us', name: 'Jonas Weber', phone: '+491701234567' };

/** A connector callback: message `id` from `sender` in the group GROUP ("Lieferanten"). */
export const groupMessage = (id: string, sender: Record<string, unknown>, text: string, timestamp: number) => ({
  type: 'message',
  id,
  chat: { id: GROUP, name: 'Lieferanten', group: true },
  sender,
  timestamp,
  text,
});

/** What a test file's beforeAll started. */
export interface GroupsEnv {
  gw: TestGateway;
  fake: FakeProvider;
  receiver: Receiver;
}

/**
 * A file's beforeAll, the same as the compat-v1 files': the fake provider, a webhook receiver that
 * verifies each delivery with `secrets`, and a gateway that calls the one and may post webhooks to the
 * other. It answers them and `close`, the file's afterAll.
 */
export const startGroupsGateway = startCompatV1Gateway;

/**
 * The helpers that call the gateway and the fake provider: `env` answers what the file's beforeAll
 * started, and `secrets` is the list the file's receiver verifies deliveries with, which
 * newReceivingCompany appends to. A file takes them once, at its top.
 */
export function groupsHelpers(env: () => GroupsEnv, secrets: string[]) {
  const store = () => env().gw.gateway.store;

  let companySeq = 0;
  /** A company whose webhook_url and one v2 endpoint are the receiver; answers its id and both secrets' indexes. */
  async function newReceivingCompany(): Promise<{ id: number; v1: number; v2: number }> {
    const { gw, receiver } = env();
    companySeq += 1;
    const id = await newCompany(gw, { webhook_url: `${receiver.url}?v1-${companySeq}` });
    secrets.push(store().webhooks.companyEndpoint(id)!.secret);
    const v1 = secrets.length - 1;
    const v2 = await gw.request('POST', `/api/p2/companies/${id}/webhooks`, {
      json: { url: `${receiver.url}?v2-${companySeq}`, active: true },
    });
    expect(v2.status).toBe(201);
    secrets.push(v2.body.webhook.secret);
    return { id, v1, v2: secrets.length - 1 };
  }

  /** A channel of `provider` created through the v1 API and enabled by a state callback; answers its external id. */
  async function connectorChannel(company: number, provider: string, body: Record<string, unknown> = {}) {
    const { gw, fake } = env();
    const res = await gw.request('POST', `/p1/companies/${company}/channels`, { json: { provider, ...body } });
    expect(res.status).toBe(201);
    const channel = res.body.data.external_id as number;
    expect(await fake.connectorCallback(channel, { type: 'state', state: 'enabled' })).toBe(200);
    return channel;
  }

  return { store, newReceivingCompany, connectorChannel };
}
