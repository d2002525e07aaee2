// What the test/connectors/flows-v1-*.test.ts files share (contract section 4 "v1 Channels"): the fake
// provider and the gateway a file starts, the path of a channel's v1 action, and the helpers that create
// a channel through the API and read its state and the events emitted from the store of that gateway.
import { expect } from 'vitest';
import { emittedEvents } from '../helpers/events.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** The v1 action `action` (request_code, confirm, enable_page_instagram, conversations) of a channel. */
export const path = (company: number, channel: number, action: string) =>
  `/p1/companies/${company}/channels/${channel}/${action}`;

/** What a test file's beforeAll starts, and `close`, its afterAll. */
export interface FlowsV1Gateway {
  gw: TestGateway;
  fake: FakeProvider;
  close: () => Promise<void>;
}

/** A file's beforeAll: the fake provider, and a gateway that calls it and retries a failed call once. */
export async function startFlowsV1Gateway(): Promise<FlowsV1Gateway> {
  const fake = await new FakeProvider().start();
  const gw = await startTestGateway({
    ...fake.env(),
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_PROVIDER_RETRY_SCHEDULE: '100ms',
  });
  const close = async () => {
    await gw.close();
    await fake.close();
  };
  return { gw, fake, close };
}

/**
 * The helpers that call or read a gateway: `gateway` answers the one the test file's beforeAll
 * started, so a file takes them once, at its top.
 */
export function flowsV1Helpers(gateway: () => TestGateway) {
  const store = () => gateway().gateway.store;
  /** How many events the gateway emitted so far, each validated against its schema. */
  const count = () => emittedEvents(store()).length;

  /** Creates a channel that must be accepted (201) and answers its external id. */
  async function newChannel(company: number, body: Record<string, unknown>): Promise<number> {
    const res = await gateway().request('POST', `/p1/companies/${company}/channels`, { json: body });
    expect(res.status).toBe(201);
    return res.body.data.external_id;
  }

  /** The stored state of a live channel. */
  const state = (channel: number) => store().channels.findLive(channel)!.state;

  return { store, count, newChannel, state };
}
