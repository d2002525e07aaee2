// End to end in embedded mode, through the real API: an API action → outbox → SQLite stream →
// signed webhook received, verified with standardwebhooks, its body matching the event schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authEvent } from '../../schemas/events/auth.js';
import { systemClock } from '../../src/streams/stream.js';
import { compileSchema, schemaErrors } from '../helpers/schemas.js';
import { startTestGateway, TO_RECEIVERS, type TestGateway } from '../helpers/gateway.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

let gw: TestGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret = '';

beforeAll(async () => {
  gw = await startTestGateway(TO_RECEIVERS, { clock: systemClock });
  receiver = await startReceiver(() => [secret]);
});
afterAll(async () => {
  await gw.close();
  await receiver.close();
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${gw.baseUrl}${path}`, {
    method,
    headers: { 'x-private-api-token': gw.token, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('embedded mode end to end', () => {
  it('delivers the events of API actions to the webhook endpoint created through the API', async () => {
    const company = (await api('POST', '/p1/companies', { name: 'E2E' })).body.data.external_id as number;
    const webhook = await api('POST', `/api/p2/companies/${company}/webhooks`, { url: receiver.url, active: true });
    expect(webhook.status).toBe(201);
    secret = webhook.body.webhook.secret;

    const created = await api('POST', `/api/p2/companies/${company}/auths`, {
      provider: 'chat_b',
      token: '123456:bot-token',
    });
    expect(created.status).toBe(201);
    const disabled = await api('PUT', `/api/p2/companies/${company}/auths/${created.body.auth.id}/disable`);
    expect(disabled.status).toBe(200);

    await eventually('auth create and update received', () => receiver.received.length >= 2);
    expect(receiver.received.map((h) => (h.body as { event: string }).event)).toEqual(['create', 'update']);
    const validate = compileSchema(authEvent);
    for (const hook of receiver.received) {
      expect(hook.verifiedBy).toEqual([0]);
      expect(validate(hook.body), schemaErrors(validate)).toBe(true);
    }
    expect(gw.logText()).not.toContain(secret.slice(6));
  });
});
