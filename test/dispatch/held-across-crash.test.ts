// Held deliveries (docs/admin.md, "Held deliveries") across a SIGKILL of the built daemon (embedded
// mode): the events of endpoints an operator disabled are held in the store, not in memory, so a
// killed and restarted daemon still lists them as held and sends none; enabling the endpoints sends
// each once, a strictly ordered endpoint's in the order of their events.
import { afterEach, describe, expect, it } from 'vitest';
import { cloudBody, cloudSignature } from '../helpers/callbacks.js';
import { DaemonOnDisk, expectOk, type CloudChannel } from '../helpers/daemon-on-disk.js';
import { startReceiver, type Answer, type Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A webhook endpoint of the company for message.create, and the receiver it posts to. */
interface Endpoint {
  id: number;
  receiver: Receiver;
}

async function endpointAt(
  daemon: DaemonOnDisk,
  companyId: number,
  ordering: 'default' | 'strict',
  answer?: (n: number) => Answer,
): Promise<Endpoint> {
  let secret = '';
  const receiver = await startReceiver(() => [secret], answer);
  cleanups.push(() => receiver.close());
  const webhook = await daemon.createWebhook(companyId, {
    url: receiver.url,
    event_types: ['message.create'],
    ordering,
  });
  secret = webhook.secret;
  return { id: webhook.id, receiver };
}

/** Posts a signed cloud-style callback with one new text message; answers its provider id once it is answered 200. */
async function newMessage(daemon: DaemonOnDisk, channel: CloudChannel, n: number): Promise<string> {
  const externalId = `wamid.held.${n}`;
  const body = cloudBody([
    {
      from: '4915100000001',
      id: externalId,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: 'text',
      text: { body: `held ${n}` },
    },
  ]);
  const response = await fetch(`${daemon.baseUrl!}/callbacks/chat_a_business/${channel.channelId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': cloudSignature(body, channel.appSecret) },
    body,
  });
  expect(response.status).toBe(200);
  return externalId;
}

/** The provider ids of the message.create webhooks an endpoint received, in arrival order, each verified with its secret. */
function receivedMessages(endpoint: Endpoint): string[] {
  return endpoint.receiver.received.map((hook) => {
    expect(hook.verifiedBy).toEqual([0]);
    return (hook.body as { object: { external_id: string } }).object.external_id;
  });
}

/** The webhook-id of each message's event, as the endpoint received it. */
function eventIdsOf(endpoint: Endpoint, externalIds: readonly string[]): string[] {
  const received = receivedMessages(endpoint);
  const byMessage = new Map(received.map((externalId, i) => [externalId, endpoint.receiver.received[i]!.id]));
  return externalIds.map((externalId) => byMessage.get(externalId)!);
}

describe('held deliveries across a SIGKILL', () => {
  it('are still held after the daemon is killed and started again, and are sent once each on enable', async () => {
    // A failed attempt is retried 200 ms later.
    const daemon = await DaemonOnDisk.start({
      GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0, 200ms, 1m',
      GATEWAY_WEBHOOK_RETRY_JITTER: '0',
    });
    cleanups.push(() => daemon.close());
    const channel = await daemon.createCloudChannel('Held Co');
    const unordered = await endpointAt(daemon, channel.companyId, 'default');
    // Its first request is answered 500: a strict endpoint sends nothing more until that event's retry succeeds.
    const strict = await endpointAt(daemon, channel.companyId, 'strict', (n) => ({ status: n === 1 ? 500 : 200 }));
    // Never disabled: its webhooks show each event was made and dispatched.
    const marker = await endpointAt(daemon, channel.companyId, 'default');
    const disabled = [unordered, strict];
    const path = (endpoint: Endpoint, action: string) =>
      `/admin/companies/${channel.companyId}/endpoints/${endpoint.id}/${action}`;
    for (const endpoint of disabled)
      expect(
        expectOk(await daemon.admin('POST', path(endpoint, 'disable'), { reason: 'maintenance' })).endpoint,
      ).toMatchObject({
        endpoint_id: endpoint.id,
        active: false,
        disabled_reason: 'maintenance',
      });

    const messages: string[] = [];
    for (let n = 1; n <= 5; n += 1) messages.push(await newMessage(daemon, channel, n));
    await eventually('the five events at the endpoint never disabled', () => marker.receiver.received.length === 5);
    const heldBefore = await Promise.all(
      disabled.map((endpoint) => daemon.deliveries({ endpoint_id: endpoint.id, status: 'held' })),
    );
    for (const [i, held] of heldBefore.entries()) {
      expect(disabled[i]!.receiver.received).toEqual([]);
      // Newest first, one per event, none attempted.
      expect(held.map((delivery) => delivery.event_id)).toEqual(eventIdsOf(marker, messages).reverse());
      for (const delivery of held)
        expect(delivery).toMatchObject({ status: 'held', held_reason: 'endpoint_disabled', attempt_count: 0 });
    }

    await daemon.kill();
    await daemon.restart();
    // An event after the restart reaches the endpoint never disabled: the restarted pipeline runs.
    messages.push(await newMessage(daemon, channel, 6));
    await eventually('the sixth event at the endpoint never disabled', () => marker.receiver.received.length === 6);
    for (const [i, endpoint] of disabled.entries()) {
      const held = await daemon.deliveries({ endpoint_id: endpoint.id, status: 'held' });
      // The five held before the kill, unchanged, and the sixth held with them.
      expect(held.slice(1)).toEqual(heldBefore[i]);
      expect(held[0]).toMatchObject({ event_id: eventIdsOf(marker, messages)[5], status: 'held', attempt_count: 0 });
      expect(
        expectOk(await daemon.admin('GET', `/admin/companies/${channel.companyId}/endpoints`)).endpoints,
      ).toContainEqual(expect.objectContaining({ endpoint_id: endpoint.id, active: false, held: 6 }));
      expect(endpoint.receiver.received).toEqual([]);
    }

    for (const endpoint of disabled)
      expect(expectOk(await daemon.admin('POST', path(endpoint, 'enable'))).endpoint).toMatchObject({
        endpoint_id: endpoint.id,
        active: true,
      });
    // One more event after the enable: it comes after the held ones at the strict endpoint.
    messages.push(await newMessage(daemon, channel, 7));
    for (const endpoint of disabled)
      await eventually(`the seven deliveries of endpoint ${endpoint.id} delivered`, async () => {
        const deliveries = await daemon.deliveries({ endpoint_id: endpoint.id });
        return deliveries.length === 7 && deliveries.every((delivery) => delivery.status === 'delivered');
      });
    // Newest first: one attempt each, but the first event's at the strict endpoint (500, then 200).
    const attempts = [
      [1, 1, 1, 1, 1, 1, 1],
      [1, 1, 1, 1, 1, 1, 2],
    ];
    for (const [i, endpoint] of disabled.entries()) {
      const deliveries = await daemon.deliveries({ endpoint_id: endpoint.id });
      expect(deliveries.map((delivery) => delivery.attempt_count)).toEqual(attempts[i]);
      expect(deliveries.map((delivery) => delivery.event_id)).toEqual(eventIdsOf(marker, messages).reverse());
    }
    // Each event once (the failed one again) with its webhook-id; the strict endpoint in the order
    // they were made, the failed one retried before any later one.
    expect(receivedMessages(strict)).toEqual([messages[0], ...messages]);
    const eventIds = eventIdsOf(marker, messages);
    expect(strict.receiver.received.map((hook) => hook.id)).toEqual([eventIds[0], ...eventIds]);
    expect([...receivedMessages(unordered)].sort()).toEqual([...messages].sort());
    expect(eventIdsOf(unordered, messages)).toEqual(eventIds);
  }, 180_000);
});
