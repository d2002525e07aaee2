// A gateway with the sandbox as every provider, a company, and a real webhook receiver subscribed to
// it through the API: what a client written for the hosted service's pages sees.
import { authEvent } from '../../schemas/events/auth.js';
import { conversationEvent } from '../../schemas/events/conversation.js';
import { messageEvent } from '../../schemas/events/message.js';
import { systemClock } from '../../src/streams/stream.js';
import { compileSchema, schemaErrors } from '../helpers/schemas.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

export interface CompatGateway {
  gw: TestGateway;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** A new company whose events go to the receiver. */
  company(name: string): Promise<number>;
  /** A new company (`label`, the provider and a random suffix) with a connected auth of `provider`, created with `body`. */
  connectedAuth(
    label: string,
    provider: string,
    body?: Record<string, unknown>,
  ): Promise<{ company: number; auth: number }>;
  /** Injects an incoming message from one sender on the auth's sandbox channel; answers its id and conversation. */
  incoming(auth: number, text: string): Promise<{ id: number; conversation_id: number }>;
  /** `connectedAuth` with a conversation opened by one incoming message. */
  conversationOf(
    label: string,
    provider: string,
    body?: Record<string, unknown>,
  ): Promise<{ company: number; auth: number; conversation: number; incoming: number }>;
  /** The webhook bodies received so far for a company, oldest first. */
  hooks(company: number): { event: string; type: string; object: any }[];
  /**
   * Waits until every delivery the admin API lists for a company so far reached the receiver
   * (through the API alone, so it holds against a cluster too). The relay fans events out in
   * batches, so a provider batch whose first events have deliveries has the rest of them soon after.
   */
  allDelivered(company: number): Promise<void>;
  close(): Promise<void>;
}

const validators = {
  auth: compileSchema(authEvent),
  message: compileSchema(messageEvent),
  conversation: compileSchema(conversationEvent),
} as Record<string, ReturnType<typeof compileSchema>>;

/** Every received v2 webhook body matches its event schema. */
function checked(body: { type: string }): void {
  const validate = validators[body.type];
  if (validate === undefined || !validate(body))
    throw new Error(
      `webhook body does not match events/${body.type}: ${validate ? schemaErrors(validate) : 'no schema'}\n${JSON.stringify(body)}`,
    );
}

export async function startCompatGateway(): Promise<CompatGateway> {
  const gw = await startTestGateway(
    { ...TO_RECEIVERS, GATEWAY_SANDBOX: 'true', GATEWAY_SANDBOX_STEP: '100ms' },
    { clock: systemClock },
  );
  const secrets: string[] = [];
  const receiver = await startReceiver(() => secrets);
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gw.baseUrl}${path}`, {
      method,
      headers: { 'x-private-api-token': gw.token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  const company = async (name: string) => {
    const id = (await api('POST', '/p1/companies', { name })).body.data.external_id as number;
    const webhook = await api('POST', `/api/p2/companies/${id}/webhooks`, { url: receiver.url, active: true });
    if (webhook.status !== 201) throw new Error(`webhook endpoint not created: ${JSON.stringify(webhook.body)}`);
    secrets.push(webhook.body.webhook.secret);
    return id;
  };
  const connectedAuth = async (label: string, provider: string, body: Record<string, unknown> = {}) => {
    const id = await company(`${label} ${provider} ${Math.random()}`);
    const auth = (await api('POST', `/api/p2/companies/${id}/auths`, { provider, ...body })).body.auth.id as number;
    await eventually('connected', () => gw.store.channels.findLive(auth)!.state === 'enabled', 10_000);
    return { company: id, auth };
  };
  const incoming = async (auth: number, text: string) => {
    const injected = await gw.admin('POST', `/admin/sandbox/channels/${auth}/messages`, {
      from: '491701234567',
      name: 'Jonas Weber',
      text,
    });
    return injected.body.message as { id: number; conversation_id: number };
  };
  return {
    gw,
    receiver,
    api,
    company,
    connectedAuth,
    incoming,
    async conversationOf(label, provider, body) {
      const opened = await connectedAuth(label, provider, body);
      const message = await incoming(opened.auth, 'Hallo!');
      return { ...opened, conversation: message.conversation_id, incoming: message.id };
    },
    hooks(company) {
      return receiver.received
        .filter((h) => h.verifiedBy.length > 0)
        .map((h) => h.body as { event: string; type: string; object: any })
        .filter((b) => b.object?.company_id === company)
        .map((b) => (checked(b), b));
    },
    async allDelivered(company) {
      await eventually(
        `every delivery of company ${company} received`,
        async () => {
          const received = new Set(receiver.received.map((h) => h.id));
          const listed = await gw.admin('GET', `/admin/deliveries?company_id=${company}&limit=200`);
          if (listed.status !== 200)
            throw new Error(`admin deliveries answered ${listed.status}: ${JSON.stringify(listed.body)}`);
          const deliveries = listed.body.deliveries as { event_id: string }[];
          if (listed.body.next_cursor !== null) throw new Error(`company ${company} has more than 200 deliveries`);
          return deliveries.length > 0 && deliveries.every((d) => received.has(d.event_id));
        },
        10_000,
      );
    },
    async close() {
      await gw.close();
      await receiver.close();
    },
  };
}
