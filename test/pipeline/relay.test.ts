import { beforeEach, describe, expect, it } from 'vitest';
import { OutboxRelay } from '../../src/outbox/relay.js';
import type { Store } from '../../src/store/store.js';
import { storePerTest } from '../helpers/temp-store.js';
import { SqliteStreamBus } from '../../src/streams/sqlite/sqlite-stream.js';
import { ManualClock, type OutgoingMessage, type StreamBus } from '../../src/streams/stream.js';
import { appendEvent, newEventId } from '../../src/domain/events.js';
import { firstAttempt } from '../../src/outbox/fan-out.js';
import { jsonOf } from '../../src/lib/json-text.js';
import { emitEvent, insertCompany, insertEndpoint } from '../helpers/pipeline.js';
import { eventually, memoryLogger } from '../helpers/wait.js';

/** A bus whose publish can be made to fail before or after the broker "acknowledged". */
class FlakyBus implements StreamBus {
  readonly kind = 'sqlite' as const;
  readonly acknowledged: { stream: string; message: OutgoingMessage }[] = [];
  mode: 'ok' | 'down' | 'ack-then-crash' = 'ok';
  refused = 0;
  async ensureStreams(): Promise<void> {}
  async publish(stream: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (this.mode === 'down') {
      this.refused += 1;
      throw new Error('broker unavailable');
    }
    this.acknowledged.push(...messages.map((message) => ({ stream, message })));
    if (this.mode === 'ack-then-crash') throw new Error('crashed after the acknowledgement');
  }
  subscribe(): never {
    throw new Error('not used');
  }
  async close(): Promise<void> {}
}

let store: Store;
storePerTest('gateway-relay-', (opened) => (store = opened));
beforeEach(() => {
  store.accounts.createWithToken('a', 'digest');
});

describe('outbox relay', () => {
  it('fans an event out to one delivery job per endpoint and marks the row once acknowledged', async () => {
    const bus = new FlakyBus();
    const relay = new OutboxRelay({ store, bus, clock: new ManualClock(), logger: memoryLogger().logger });
    const company = insertCompany(store);
    insertEndpoint(store, company, 'https://a.example/hook');
    insertEndpoint(store, company, 'https://b.example/hook');
    const event = emitEvent(store, company);
    store.transaction(() =>
      store.outbox.append({ stream: 'gateway.outbound', key: '9', messageId: 'job-1', payload: { send: 'x' } }),
    );
    const heard: string[] = [];
    store.outbox.onPublished((rows) => heard.push(...rows.map((row) => row.message_id)));
    expect(await relay.relayBatch()).toBe(2);
    // Its listeners hear of both once they are marked.
    expect(heard).toEqual([event.id, 'job-1']);
    expect(bus.acknowledged.map((a) => a.stream)).toEqual(['gateway.events', 'gateway.events', 'gateway.outbound']);
    const jobs = bus.acknowledged
      .slice(0, 2)
      .map((a) => a.message.value as { event: { id: string }; endpoint: { url: string }; attempt: number });
    expect(jobs.map((j) => [j.event.id, j.endpoint.url, j.attempt])).toEqual([
      [event.id, 'https://a.example/hook', 1],
      [event.id, 'https://b.example/hook', 1],
    ]);
    expect(store.outbox.lag().pending).toBe(0);
  });

  it('keeps rows while the stream is down and publishes them once it is back, in order', async () => {
    const bus = new FlakyBus();
    bus.mode = 'down';
    const relay = new OutboxRelay({ store, bus, clock: new ManualClock(), logger: memoryLogger().logger, idleMs: 5 });
    for (let n = 0; n < 5; n += 1)
      store.transaction(() =>
        store.outbox.append({ stream: 'gateway.outbound', key: 'k', messageId: `m${n}`, payload: { n } }),
      );
    const abort = new AbortController();
    const running = relay.run(abort.signal);
    await eventually('two refused tries', () => bus.refused >= 2, 30_000);
    expect(store.outbox.lag().pending).toBe(5);
    bus.mode = 'ok';
    await eventually('all published', () => store.outbox.lag().pending === 0);
    abort.abort();
    await running;
    expect(bus.acknowledged.map((a) => a.message.id)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  });

  it('publishes again with the same ids (and the same deliveries) after a crash between acknowledgement and mark', async () => {
    const bus = new FlakyBus();
    const relay = new OutboxRelay({ store, bus, clock: new ManualClock(), logger: memoryLogger().logger });
    const company = insertCompany(store);
    insertEndpoint(store, company, 'https://a.example/hook');
    emitEvent(store, company);
    bus.mode = 'ack-then-crash';
    await expect(relay.relayBatch()).rejects.toThrow(/crashed/);
    bus.mode = 'ok';
    await relay.relayBatch();
    const [first, second] = bus.acknowledged.map((a) => a.message);
    expect(second!.id).toBe(first!.id);
    expect((second!.value as { delivery_id: string }).delivery_id).toBe(
      (first!.value as { delivery_id: string }).delivery_id,
    );
    expect(store.deliverySearch.count({})).toBe(1);
  });

  it("serializes an event's body once: the outbox row, a first attempt's job and its request body are built from that text", () => {
    const company = insertCompany(store);
    const event = emitEvent(store, company, 'message.create', { id: 7, text: 'quote " and \u2028 and ü' });
    const [row] = store.outbox.pendingHere(10);
    expect(JSON.parse(row!.payload)).toEqual(JSON.parse(JSON.stringify(event)));
    expect(jsonOf(event.body)).toBe(JSON.stringify(event.body));
    const endpoint = {
      id: 3,
      url: 'https://a.example/hook',
      secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      rate_limit: 5,
    };
    const message = firstAttempt('dlv_1', event, endpoint, undefined, row!.payload);
    expect(message.json).toBe(JSON.stringify(message.value));
    // Without the event's text (a v1 rendition), the job is serialized whole when published.
    expect(firstAttempt('dlv_1', event, endpoint, undefined).json).toBeUndefined();
  });

  describe('on the embedded streams', () => {
    const streamRows = () =>
      store.db
        .prepare<[], { message_id: string }>('SELECT message_id FROM stream_messages ORDER BY seq')
        .all()
        .map((r) => r.message_id);

    it('commits the delivery rows, the stream messages and the outbox mark in one transaction', async () => {
      const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger);
      const relay = new OutboxRelay({ store, bus, clock: new ManualClock(), logger: memoryLogger().logger });
      const company = insertCompany(store);
      insertEndpoint(store, company, 'https://a.example/hook');
      insertEndpoint(store, company, 'https://b.example/hook');
      emitEvent(store, company);
      emitEvent(store, company);
      expect(await relay.relayBatch()).toBe(2);
      const deliveries = store.deliverySearch
        .list({}, undefined, 10)
        .rows.map((d) => d.id)
        .sort();
      expect(deliveries).toHaveLength(4);
      expect(
        streamRows()
          .map((id) => id.replace(/:1$/, ''))
          .sort(),
      ).toEqual(deliveries);
      expect(store.outbox.lag().pending).toBe(0);
      expect(await relay.relayBatch()).toBe(0);
    });

    it('publishes the events of a group-commit unit in the commit of that unit, without an outbox row, and hands them to the consumer', async () => {
      const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger);
      const relay = new OutboxRelay({ store, bus, clock: new ManualClock(), logger: memoryLogger().logger });
      const company = insertCompany(store);
      insertEndpoint(store, company, 'https://a.example/hook');
      const received: string[] = [];
      const subscription = bus.subscribe({
        stream: 'gateway.events',
        group: 'test',
        handler: async (message) => void received.push(message.id),
      });
      const abort = new AbortController();
      const running = relay.run(abort.signal);
      const heard: string[] = [];
      store.outbox.onPublished((rows) => heard.push(...rows.map((row) => row.message_id)));
      try {
        await eventually('the relay idle', () => store.outbox.lag().pending === 0);
        const event = await store.grouped(() => {
          const id = newEventId();
          const createdAt = new Date().toISOString();
          return appendEvent(store.outbox, {
            id,
            company_id: company,
            name: 'message.create',
            created_at: createdAt,
            body: { id },
          });
        });
        // No turn of the event loop since the commit: the relay ran in it, not after it.
        expect(store.outbox.lag().pending).toBe(0);
        expect(heard).toEqual([event.id]);
        expect(store.db.prepare('SELECT count(*) AS n FROM outbox').get()).toEqual({ n: 0 });
        const [delivery] = store.deliverySearch.list({}, undefined, 10).rows;
        expect(delivery?.event_id).toBe(event.id);
        await eventually('the job consumed', () => received.length === 1);
        expect(received).toEqual([`${delivery!.id}:1`]);
      } finally {
        abort.abort();
        await running;
        await subscription.stop();
      }
    });

    it('writes the events of a unit whose relay fails as pending rows, commits the unit, and says why', async () => {
      const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger);
      const log = memoryLogger();
      const relay = new OutboxRelay({ store, bus, clock: new ManualClock(), logger: log.logger, idleMs: 60_000 });
      const company = insertCompany(store);
      insertEndpoint(store, company, 'https://a.example/hook');
      const abort = new AbortController();
      const running = relay.run(abort.signal);
      try {
        await store.grouped(() => {
          emitEvent(store, company);
          store.db
            .prepare(
              "INSERT INTO outbox (stream, key, message_id, payload, created_at) VALUES ('gateway.events', '1', 'broken', 'not json', 0)",
            )
            .run();
        });
        expect(store.outbox.lag().pending).toBe(2);
        expect(store.deliverySearch.count({})).toBe(0);
        expect(streamRows()).toEqual([]);
        expect(log.text()).toContain('outbox relay in a group commit failed; its rows wait for the next pass');
      } finally {
        abort.abort();
        await running;
      }
    });

    it('writes nothing of a batch whose fan-out fails: no delivery, no stream message, the rows stay pending', async () => {
      const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger);
      const relay = new OutboxRelay({ store, bus, clock: new ManualClock(), logger: memoryLogger().logger });
      const company = insertCompany(store);
      insertEndpoint(store, company, 'https://a.example/hook');
      emitEvent(store, company);
      // A row the fan-out cannot read, after a good one of the same batch.
      store.db
        .prepare(
          "INSERT INTO outbox (stream, key, message_id, payload, created_at) VALUES ('gateway.events', '1', 'broken', 'not json', 0)",
        )
        .run();
      await expect(relay.relayBatch()).rejects.toThrow(SyntaxError);
      expect(store.deliverySearch.count({})).toBe(0);
      expect(streamRows()).toEqual([]);
      expect(store.outbox.lag().pending).toBe(2);
    });
  });
});
