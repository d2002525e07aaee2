// The live event stream fed by real provider callbacks posted over HTTP, many at once, through the
// group commit (where the relay publishes events from memory and they never become outbox rows):
// every v2 event of the company arrives exactly once, in order, across a reconnect with
// Last-Event-ID in the middle of the flow. A reader that stops reading holds only its own
// connection: callbacks and other streams go on, and what the daemon holds for it stays bounded.
// The first case runs again with Kafka streams, where every event is an outbox row first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackInfo, cloudBody, postCloud } from '../helpers/callbacks.js';
import { emittedEvents } from '../helpers/events.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { openPausedSse, openSse, type OpenSse } from '../helpers/sse.js';
import { eventually } from '../helpers/wait.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
});
afterAll(async () => {
  await gw.close();
});

const streamPath = (companyId: number) => `/api/p2/companies/${companyId}/events/stream`;

/** A company with a cloud channel; answers what posting its callbacks takes. */
async function cloudCompany(name: string): Promise<{ companyId: number; channelId: number; appSecret: string }> {
  const companyId = (await gw.request('POST', '/p1/companies', { json: { name } })).body.data.external_id as number;
  const channelId = (
    await gw.request('POST', `/p1/companies/${companyId}/channels`, {
      json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 'EAAG-cloud-token' },
    })
  ).body.data.external_id as number;
  const { secrets } = await callbackInfo(gw, channelId);
  return { companyId, channelId, appSecret: secrets.app_secret! };
}

/** Posts `count` text callbacks at once (senders take turns); every one must be answered 200. */
async function postTexts(
  target: { channelId: number; appSecret: string },
  prefix: string,
  count: number,
  text = (n: number) => `${prefix} message ${n}`,
): Promise<void> {
  const statuses = await Promise.all(
    Array.from({ length: count }, (_, n) => {
      const body = cloudBody([
        {
          from: `49151000${String(n % 7).padStart(4, '0')}`,
          id: `wamid.${prefix}.${n}`,
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'text',
          text: { body: text(n) },
        },
      ]);
      return postCloud(gw, target.channelId, body, target.appSecret).then((res) => res.status);
    }),
  );
  expect(statuses).toEqual(statuses.map(() => 200));
}

/** The ids of the company's v2 events the gateway emitted, in publish order (the ground truth). */
function emittedIds(companyId: number): string[] {
  return emittedEvents(gw.store)
    .filter((event) => event.company_id === companyId && 'object' in event.body && typeof event.body.type === 'string')
    .map((event) => event.id);
}

/**
 * 240 concurrent callbacks while a stream is open; the stream closes mid-flow and another resumes
 * after the last event seen. Every event arrives exactly once, in order; answers the event ids.
 */
async function streamThroughReconnect(): Promise<{ companyId: number; expected: string[] }> {
  const target = await cloudCompany('Busy Stream Co');
  const headers = { 'x-private-api-token': gw.token };
  const before = emittedIds(target.companyId).length;
  const first = await openSse(gw.baseUrl, streamPath(target.companyId), headers);
  expect(first.status).toBe(200);
  expect(first.headers['content-type']).toBe('text/event-stream; charset=utf-8');

  const posting = postTexts(target, 'busy', 240);
  await eventually('the first stream got some events', () => first.messages.length >= 40);
  first.close();
  const lastSeen = first.messages.at(-1)!.id;
  // Events go on while no stream is open; the next one resumes right after the last one seen.
  const resumed: OpenSse = await openSse(gw.baseUrl, streamPath(target.companyId), {
    ...headers,
    'last-event-id': lastSeen,
  });
  expect(resumed.status).toBe(200);
  await posting;
  const expected = emittedIds(target.companyId).slice(before);
  // 240 message.create and a conversation.create for each of the 7 senders.
  expect(expected).toHaveLength(247);
  await eventually('the resumed stream caught up', () => first.messages.length + resumed.messages.length >= 247);
  resumed.close();

  expect([...first.messages, ...resumed.messages].map((m) => m.id)).toEqual(expected);
  for (const message of [...first.messages, ...resumed.messages]) {
    expect(message.event).toBe(`${String(message.data.type)}.${String(message.data.event)}`);
    expect(message.data.id).toBe(message.id);
  }
  return { companyId: target.companyId, expected };
}

describe('the live event stream under real callbacks', () => {
  it('carries every event of concurrent callbacks exactly once, in order, across a reconnect with Last-Event-ID', async () => {
    const { companyId, expected } = await streamThroughReconnect();
    // The group commits published these events from memory: the outbox never held them as rows.
    const rows = gw.store.db
      .prepare<[string], { n: number }>("SELECT count(*) AS n FROM outbox WHERE stream = 'gateway.events' AND key = ?")
      .get(String(companyId))!.n;
    expect(rows).toBeLessThan(expected.length);
  });

  it('holds only its own connection when its reader stops reading: callbacks and other streams go on, its buffer stays bounded', async () => {
    const target = await cloudCompany('Slow Reader Co');
    const headers = { 'x-private-api-token': gw.token };
    const before = emittedIds(target.companyId).length;
    const paused = await openPausedSse(gw.gateway.port, streamPath(target.companyId), headers);
    expect(paused.head).toMatch(/^HTTP\/1\.1 200 /);
    const slow = () => gw.gateway.liveStreams.stats().find((s) => s.companyId === target.companyId)!;
    expect(slow()).toMatchObject({ eventsRead: 0, waitingDrain: false });

    // Large messages, until the socket's buffers are full and the stream waits for them to drain.
    const large = (n: number) => `${n} ${'x'.repeat(32_000)}`;
    let posted = 0;
    await eventually(
      'the paused reader filled its socket',
      async () => {
        if (slow().waitingDrain) return true;
        await postTexts(target, `slow${posted}`, 20, large);
        posted += 20;
        return false;
      },
      60_000,
    );
    const blocked = slow();

    // Traffic goes on: callbacks are answered and stored, and another stream of the company gets them.
    const other = await openSse(gw.baseUrl, streamPath(target.companyId), headers);
    await postTexts(target, 'during', 40);
    await eventually('the other stream got the new events', () => other.messages.length >= 40);
    other.close();
    const company = await gw.request('GET', '/p1/companies');
    expect(company.status).toBe(200);

    // The paused stream read nothing more, and holds at most one event past the high-water mark.
    const now = slow();
    expect(now.waitingDrain).toBe(true);
    expect(now.eventsRead).toBe(blocked.eventsRead);
    expect(now.eventsWritten).toBe(blocked.eventsWritten);
    expect(now.queuedBytes).toBeLessThanOrEqual(16 * 1024 + 33_000);
    const expected = emittedIds(target.companyId).slice(before);
    expect(now.eventsWritten).toBeLessThan(expected.length);

    // Read again, it gets everything, in order, nothing lost.
    paused.resume();
    await eventually('the paused reader caught up', () => paused.messages.length >= expected.length, 60_000);
    expect(paused.messages.map((m) => m.id)).toEqual(expected);
    paused.close();
  });
});

describe('the live event stream under real callbacks, with Kafka streams', () => {
  let embedded: TestGateway;
  beforeAll(async () => {
    embedded = gw;
    gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN }, { streams: 'kafka' });
  });
  afterAll(async () => {
    await gw.close();
    gw = embedded;
  });

  it('carries every event of concurrent callbacks exactly once, in order, across a reconnect with Last-Event-ID', async () => {
    const { expected } = await streamThroughReconnect();
    expect(expected).toHaveLength(247);
  });
});
