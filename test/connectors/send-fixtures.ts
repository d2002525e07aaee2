// What the test/connectors/send-*.test.ts files share: the fake provider, the gateway and the company a
// file starts, sending a message through the p2 API as that company, reading its row back from the
// store, and the message.update events it got.
import { expect } from 'vitest';
import { checkedEvents } from '../helpers/callbacks.js';
import { FakeProvider } from '../helpers/fake-provider.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';

/** What a test file's beforeAll started: the gateway and the company that sends. */
export interface SendEnv {
  gw: TestGateway;
  companyId: number;
}

/** What a test file's beforeAll starts, and `close`, its afterAll. */
export interface SendGateway extends SendEnv {
  fake: FakeProvider;
  close: () => Promise<void>;
}

/** A file's beforeAll: the fake provider, a gateway that calls it and retries a failed call twice, and the company. */
export async function startSendGateway(): Promise<SendGateway> {
  const fake = await new FakeProvider().start();
  const gw = await startTestGateway({
    ...fake.env(),
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_PROVIDER_RETRY_SCHEDULE: '100ms,100ms',
  });
  const companyId = await newCompany(gw, { name: 'Sender Co' });
  const close = async () => {
    await gw.close();
    await fake.close();
  };
  return { gw, fake, companyId, close };
}

/** The helpers that send and read back; `env` answers what the file's beforeAll started. A file takes them once, at its top. */
export function sendHelpers(env: () => SendEnv) {
  const store = () => env().gw.gateway.store;
  const message = (id: number) => store().messages.findById(id)!;

  /** Sends `json` into the conversation as the company; answers the new message's id. */
  async function send(conversationId: number, json: Record<string, unknown>): Promise<number> {
    const { gw, companyId } = env();
    const res = await gw.request('POST', `/api/p2/conversations/${conversationId}/messages`, {
      json: { company_id: companyId, ...json },
    });
    expect(res.status).toBe(201);
    return res.body.message.id as number;
  }

  /** message.update events of one message, in order, as (status, external_id). */
  function updatesOf(messageId: number, before: number) {
    return checkedEvents(store(), before)
      .filter((e) => e.name === 'message.update' && (e.body.object as { id: number }).id === messageId)
      .map((e) => {
        const object = e.body.object as { status: string; external_id: string | null; details: unknown };
        return { status: object.status, external_id: object.external_id };
      });
  }

  return { store, message, send, updatesOf };
}
