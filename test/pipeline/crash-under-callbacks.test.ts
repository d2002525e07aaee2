// The built daemon (embedded mode) is SIGKILLed three times while signed provider callbacks stream in
// over HTTP from several senders, each time right after a callback was answered 200, so the kill cuts
// group commits, answers and webhook attempts in flight.
// A 200 is sent only after the callback's commit: every callback answered 200 must be stored and
// announced, whatever the kills. A callback cut without an answer is the provider's to send again;
// sent again after the restart it is answered 200 and stored once, deduplicated by the provider's
// message id (docs/decisions.md, "Deduplication"). Delivery is at least once: an event sent twice
// carries the same webhook-id both times.
import { afterEach, describe, expect, it } from 'vitest';
import { cloudBody, cloudSignature } from '../helpers/callbacks.js';
import { DaemonOnDisk, type CloudChannel } from '../helpers/daemon-on-disk.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

const SENDERS = 4;
const KILLS = 3;
/** Callbacks answered 200 in each run of the daemon before it is killed (and after the last restart). */
const ACCEPTED_PER_RUN = 120;

interface Callback {
  /** The provider's message id: the message's external_id, and what deduplicates it. */
  externalId: string;
  body: string;
  signature: string;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A cloud-style callback with one text message from the sender's own number, signed with the app secret. */
function textCallback(channel: CloudChannel, sender: number, n: number): Callback {
  const externalId = `wamid.crash.${sender}.${n}`;
  const body = cloudBody([
    {
      from: `4915100000${sender}`,
      id: externalId,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: 'text',
      text: { body: `callback ${sender}.${n}` },
    },
  ]);
  return { externalId, body, signature: cloudSignature(body, channel.appSecret) };
}

/** Posts a callback as the provider does: its status, or 'unanswered' when the connection broke first. */
async function post(baseUrl: string, channel: CloudChannel, callback: Callback): Promise<number | 'unanswered'> {
  try {
    const response = await fetch(`${baseUrl}/callbacks/chat_a_business/${channel.channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': callback.signature },
      body: callback.body,
      signal: AbortSignal.timeout(30_000),
    });
    await response.arrayBuffer().catch(() => undefined);
    return response.status;
  } catch {
    return 'unanswered';
  }
}

/**
 * SENDERS loops, each posting its next callback as soon as the last one is answered, while the
 * daemon runs; while it is down they wait for it to be back.
 */
class CallbackStream {
  readonly accepted: Callback[] = [];
  readonly unanswered: Callback[] = [];
  readonly refused: string[] = [];
  inFlight = 0;
  /** Called once, synchronously, on the next 200: the moment its commit must already be durable. */
  onNextAccepted: (() => void) | null = null;
  private stopped = false;
  private readonly loops: Promise<void>[];

  constructor(
    private readonly daemon: DaemonOnDisk,
    private readonly channel: CloudChannel,
  ) {
    this.loops = Array.from({ length: SENDERS }, (_, sender) => this.send(sender));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  private async send(sender: number): Promise<void> {
    for (let n = 0; !this.stopped;) {
      const baseUrl = this.daemon.baseUrl;
      if (baseUrl === null) {
        await eventually('the daemon running again', () => this.daemon.baseUrl !== null || this.stopped, 120_000);
        continue;
      }
      const callback = textCallback(this.channel, sender, (n += 1));
      this.inFlight += 1;
      const outcome = await post(baseUrl, this.channel, callback);
      this.inFlight -= 1;
      if (outcome === 200) {
        this.accepted.push(callback);
        const hook = this.onNextAccepted;
        this.onNextAccepted = null;
        hook?.();
      } else if (outcome === 'unanswered') this.unanswered.push(callback);
      else this.refused.push(`${callback.externalId}: ${outcome}`);
    }
  }
}

interface MessageWebhook {
  externalId: string;
  webhookId: string;
}

/** The message.create webhooks a receiver got, each verified with its endpoint's secret. */
function messageWebhooks(receiver: Receiver): MessageWebhook[] {
  return receiver.received.map((hook) => {
    const body = hook.body as { type: string; event: string; object: { external_id: string } };
    expect([body.type, body.event, hook.verifiedBy]).toEqual(['message', 'create', [0]]);
    return { externalId: body.object.external_id, webhookId: hook.id };
  });
}

/** The webhook-ids received per external id, distinct. */
function webhookIdsByMessage(hooks: readonly MessageWebhook[]): Map<string, Set<string>> {
  const ids = new Map<string, Set<string>>();
  for (const hook of hooks) ids.set(hook.externalId, (ids.get(hook.externalId) ?? new Set()).add(hook.webhookId));
  return ids;
}

describe('SIGKILL of the daemon while callbacks arrive over HTTP', () => {
  it('stores and delivers every callback answered 200, and once each callback sent again after a cut', async () => {
    const daemon = await DaemonOnDisk.start();
    cleanups.push(() => daemon.close());
    const channel = await daemon.createCloudChannel('Crash Co');
    // Two endpoints, so each event fans out to both; the receivers answer a moment late, so that
    // attempts are in flight when the daemon is killed.
    const secrets: string[] = [];
    const receivers: Receiver[] = [];
    const endpoints: number[] = [];
    for (let i = 0; i < 2; i += 1) {
      const receiver = await startReceiver(
        () => [secrets[i]!],
        () => ({ status: 200, delayMs: 5 }),
      );
      cleanups.push(() => receiver.close());
      receivers.push(receiver);
      const webhook = await daemon.createWebhook(channel.companyId, {
        url: receiver.url,
        event_types: ['message.create'],
      });
      secrets.push(webhook.secret);
      endpoints.push(webhook.id);
    }

    const stream = new CallbackStream(daemon, channel);
    cleanups.push(() => stream.stop());
    const cutByKill: number[] = [];
    const answeredAtKill: Callback[] = [];
    for (let run = 1; run <= KILLS; run += 1) {
      const accepted = stream.accepted.length;
      const received = receivers[0]!.received.length;
      await eventually(
        `run ${run}: ${ACCEPTED_PER_RUN} callbacks answered 200 and webhooks arriving`,
        () => stream.accepted.length >= accepted + ACCEPTED_PER_RUN && receivers[0]!.received.length > received,
        120_000,
      );
      const unanswered = stream.unanswered.length;
      // The kill follows a 200 at once, while the other senders' callbacks are on their way.
      await new Promise<void>((resolve) => (stream.onNextAccepted = () => void daemon.kill().then(resolve)));
      answeredAtKill.push(stream.accepted.at(-1)!);
      await eventually('every callback in flight at the kill cut', () => stream.inFlight === 0, 60_000);
      cutByKill.push(stream.unanswered.length - unanswered);
      await daemon.restart();
    }
    const accepted = stream.accepted.length;
    await eventually(
      `${ACCEPTED_PER_RUN} callbacks answered 200 after the last restart`,
      () => stream.accepted.length >= accepted + ACCEPTED_PER_RUN,
      120_000,
    );
    await stream.stop();
    expect(stream.refused).toEqual([]);
    const sent = [...stream.accepted, ...stream.unanswered].map((callback) => callback.externalId).sort();
    expect(new Set(sent).size).toBe(sent.length);

    // Every callback answered 200 is stored, before any is sent again; a cut one may be or not.
    const storedBefore = new Set((await daemon.allMessages(channel.companyId)).map((m) => m.external_id as string));
    expect(stream.accepted.filter((c) => !storedBefore.has(c.externalId)).map((c) => c.externalId)).toEqual([]);
    const cutButStored = stream.unanswered.filter((callback) => storedBefore.has(callback.externalId)).length;
    expect(storedBefore.size).toBe(stream.accepted.length + cutButStored);

    // The provider sends the cut ones again, and repeats the ones answered just before each kill
    // (stored, committed with the callbacks the kill cut): each is answered 200, and stored once.
    for (const callback of [...stream.unanswered, ...answeredAtKill])
      expect(await post(daemon.baseUrl!, channel, callback)).toBe(200);
    const stored = (await daemon.allMessages(channel.companyId)).map((message) => message.external_id as string);
    expect(stored.sort()).toEqual(sent);

    // Each endpoint has one delivery per callback, every one delivered: no event was made twice.
    for (const endpoint of endpoints)
      await eventually(
        `every delivery of endpoint ${endpoint} delivered`,
        async () => {
          const deliveries = await daemon.deliveries({ endpoint_id: endpoint });
          return deliveries.length >= sent.length && deliveries.every((d) => d.status === 'delivered');
        },
        120_000,
      );
    const eventIds = await Promise.all(
      endpoints.map(async (endpoint) =>
        (await daemon.deliveries({ endpoint_id: endpoint })).map((d) => d.event_id as string).sort(),
      ),
    );
    expect(eventIds[0]!.length).toBe(sent.length);
    expect(new Set(eventIds[0]).size).toBe(sent.length);
    expect(eventIds[1]).toEqual(eventIds[0]);

    // Each receiver got every callback's message.create, each message under one webhook-id however
    // often it arrived: exactly the events of the deliveries.
    for (const receiver of receivers) {
      const byMessage = webhookIdsByMessage(messageWebhooks(receiver));
      expect([...byMessage.keys()].sort()).toEqual(sent);
      expect([...byMessage.values()].filter((webhookIds) => webhookIds.size !== 1)).toEqual([]);
      expect([...byMessage.values()].map((webhookIds) => [...webhookIds][0]).sort()).toEqual(eventIds[0]);
    }
    console.info(
      `crash under callbacks: ${stream.accepted.length} answered 200, ${stream.unanswered.length} cut ` +
        `(${cutByKill.join(', ')} per kill; ${cutButStored} of them stored before they were sent again); ` +
        `webhooks received ${receivers.map((r) => r.received.length).join(' and ')} for ${sent.length} events per endpoint`,
    );
  }, 600_000);
});
