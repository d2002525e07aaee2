// What the test/connectors/compat-v1-*.test.ts files share (v1 as the pact-im/api-doc pages document
// it): the fake provider, the real webhook receiver and the gateway a file starts, the helpers that
// create a v1 company whose webhook_url is that receiver and a channel through the v1 API, read what the
// receiver got for a company (each delivery verified with the standardwebhooks package), and check v1
// payloads against their schemas and v1 times.
import { expect } from 'vitest';
import { conversationV1Event, messageV1Event } from '../../schemas/events/messaging-v1.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { compileSchema, schemaErrors } from '../helpers/schemas.js';
import { newCompany } from '../helpers/seed.js';

/** A webhook body as the receiver parsed it. */
export type Hook = Record<string, any>;

/** The v1 action `action` (conversations, jobs/<id>, user_exists) of a channel. */
export const channelPath = (company: number, channel: number, action: string) =>
  `/p1/companies/${company}/channels/${channel}/${action}`;

/** The test POST a webhook_url gets. */
export const isTest = (hook: Hook) => hook.operation === 'test';

const v1Schemas = { message: compileSchema(messageV1Event), conversation: compileSchema(conversationV1Event) };
/** Every v1 message and conversation payload the company got matches its schema (schemas/events/messaging-v1.ts). */
export function expectV1Shapes(hooks: Hook[]): void {
  for (const hook of hooks.filter((h) => h.type === 'message' || h.type === 'conversation')) {
    const validate = v1Schemas[hook.type as 'message' | 'conversation'];
    expect(validate(hook), schemaErrors(validate)).toBe(true);
  }
}

/** `2017-11-11 12:45:53 UTC`, as the v1 pages write times. */
export const v1Time = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** What a test file starts in its beforeAll: the gateway, the fake provider and the webhook receiver. */
export interface CompatV1Setup {
  gw: TestGateway;
  fake: FakeProvider;
  receiver: Receiver;
}

/** What a test file's beforeAll starts, and `close`, its afterAll. */
export interface CompatV1Gateway extends CompatV1Setup {
  close: () => Promise<void>;
}

/**
 * A file's beforeAll: the fake provider, a webhook receiver that verifies each delivery with `secrets`,
 * and a gateway that calls the one, retrying a failed call once, and may post webhooks to the other.
 */
export async function startCompatV1Gateway(secrets: () => string[]): Promise<CompatV1Gateway> {
  const fake = await new FakeProvider().start();
  const receiver = await startReceiver(secrets);
  const gw = await startTestGateway({
    ...fake.env(),
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_PROVIDER_RETRY_SCHEDULE: '100ms',
    GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  });
  const close = async () => {
    await gw.close();
    await receiver.close();
    await fake.close();
  };
  return { gw, fake, receiver, close };
}

/**
 * The helpers that call or read what a test file started: `setup` answers what its beforeAll
 * started, so a file takes them once, at its top, and starts its receiver with `() => secrets`.
 */
export function compatV1Helpers(setup: () => CompatV1Setup) {
  /** Every signing secret of the endpoints the tests created; a delivery names the ones that verified it. */
  const secrets: string[] = [];
  const store = () => setup().gw.gateway.store;

  /** A company whose webhook_url is the receiver; answers its id and the secret its deliveries are signed with. */
  async function newV1Company(
    webhookUrl: string | null = setup().receiver.url,
  ): Promise<{ id: number; secret: number }> {
    const id = await newCompany(setup().gw, { webhook_url: webhookUrl });
    const endpoint = store().webhooks.companyEndpoint(id);
    if (endpoint !== undefined) secrets.push(endpoint.secret);
    return { id, secret: secrets.length - 1 };
  }
  async function newChannel(company: number, body: Record<string, unknown>): Promise<number> {
    const res = await setup().gw.request('POST', `/p1/companies/${company}/channels`, { json: body });
    expect(res.status).toBe(201);
    return res.body.data.external_id;
  }
  async function connectedChatA(company: number): Promise<number> {
    const channel = await newChannel(company, { provider: 'chat_a' });
    expect(await setup().fake.connectorCallback(channel, { type: 'state', state: 'enabled' })).toBe(200);
    return channel;
  }
  /** What the receiver got for this company, each delivery checked to be signed with the company endpoint's secret. */
  function hooksOf(company: { id: number; secret: number }): Hook[] {
    const hooks = setup().receiver.received.filter((h) => (h.body as Hook).company_id === company.id);
    for (const hook of hooks) expect(hook.verifiedBy).toEqual([company.secret]);
    return hooks.map((h) => h.body as Hook);
  }

  return { secrets, store, newV1Company, newChannel, connectedChatA, hooksOf };
}
