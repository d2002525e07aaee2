// The one conformance suite every StreamBus implementation passes (run by sqlite-log.test.ts and kafka.test.ts).
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, type IncomingMessage, type StreamBus, type Subscription } from '../../src/streams/stream.js';
import { eventually } from '../helpers/wait.js';

export interface BusUnderTest {
  bus: StreamBus;
  close(): Promise<void>;
}

/** `open` makes a bus on the given clock; several buses of one test share the same backing store or broker. */
export function streamConformance(
  name: string,
  open: (clock: ManualClock) => Promise<BusUnderTest>,
  options: { leaseMs: number },
): void {
  describe(`stream conformance: ${name}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    const clock = new ManualClock();
    async function bus(): Promise<StreamBus> {
      const opened = await open(clock);
      cleanups.push(() => opened.close());
      return opened.bus;
    }
    async function freshStream(b: StreamBus): Promise<string> {
      const stream = `conf-${randomUUID()}`;
      await b.ensureStreams([{ name: stream, partitions: 3 }]);
      return stream;
    }
    function consume(
      b: StreamBus,
      stream: string,
      group: string,
      handler: (m: IncomingMessage) => Promise<void>,
      maxInFlight?: number,
    ) {
      const subscription: Subscription = b.subscribe({ stream, group, handler, maxInFlight });
      cleanups.push(() => subscription.stop());
      return subscription;
    }
    const values = (ms: IncomingMessage[]) => ms.map((m) => (m.value as { n: number }).n);

    it('publishes with a key and consumes in a group; committed messages are not handed out again', async () => {
      const b = await bus();
      const stream = await freshStream(b);
      const group = `g-${randomUUID()}`;
      await b.publish(
        stream,
        [1, 2, 3].map((n) => ({ key: `k${n}`, id: `m${n}`, value: { n } })),
      );
      const received: IncomingMessage[] = [];
      const first = consume(b, stream, group, async (m) => void received.push(m));
      await eventually('three messages', () => received.length === 3);
      expect(received.map((m) => [m.key, m.id, m.stream]).sort()).toEqual([
        ['k1', 'm1', stream],
        ['k2', 'm2', stream],
        ['k3', 'm3', stream],
      ]);
      expect(values(received).sort()).toEqual([1, 2, 3]);
      await first.drain();

      const again: IncomingMessage[] = [];
      const second = consume(b, stream, group, async (m) => void again.push(m));
      await second.ready;
      await b.publish(stream, [{ key: 'k9', id: 'marker', value: { n: 9 } }]);
      await eventually('the marker', () => again.some((m) => m.id === 'marker'));
      expect(again.map((m) => m.id)).toEqual(['marker']);
    });

    it('hands out again what a consumer that died had not committed', async () => {
      const b = await bus();
      const stream = await freshStream(b);
      const group = `g-${randomUUID()}`;
      await b.publish(
        stream,
        [1, 2].map((n) => ({ key: `k${n}`, id: `m${n}`, value: { n } })),
      );
      const seenByDead: string[] = [];
      const dead = consume(b, stream, group, (m) => {
        seenByDead.push(m.id);
        return new Promise<void>(() => {}); // never finishes: the process "dies" mid-work
      });
      await eventually('the dying consumer got both', () => seenByDead.length === 2);
      await dead.stop();
      clock.advance(options.leaseMs + 1);

      const survivor: string[] = [];
      consume(b, stream, group, async (m) => void survivor.push(m.id));
      await eventually('redelivery', () => survivor.length === 2);
      expect(survivor.sort()).toEqual(['m1', 'm2']);
    });

    it('hands a message to the handler again when the handler threw', async () => {
      const b = await bus();
      const stream = await freshStream(b);
      let calls = 0;
      consume(b, stream, `g-${randomUUID()}`, async () => {
        calls += 1;
        if (calls === 1) throw new Error('dependency down');
      });
      await b.publish(stream, [{ key: 'k', id: 'm', value: { n: 1 } }]);
      await eventually('a second call', () => calls >= 2);
    });

    it('keeps a message back until its not_before', async () => {
      const b = await bus();
      const delayed = await freshStream(b);
      const immediate = await freshStream(b);
      const group = `g-${randomUUID()}`;
      const received: string[] = [];
      const subscriptions = [
        consume(b, delayed, group, async (m) => void received.push(m.id)),
        consume(b, immediate, group, async (m) => void received.push(m.id)),
      ];
      await Promise.all(subscriptions.map((s) => s.ready));
      await b.publish(delayed, [{ key: 'k', id: 'later', value: { n: 1 }, notBefore: clock.now() + 60_000 }]);
      await b.publish(immediate, [{ key: 'k', id: 'now', value: { n: 2 } }]);
      await eventually('the undelayed message', () => received.includes('now'));
      // A message of another key on the delayed stream, published after it: not_before holds back
      // its own key only, so this one is handed out, behind the delayed one had that been due.
      await b.publish(delayed, [{ key: 'other', id: 'after', value: { n: 3 } }]);
      await eventually('the message published after it', () => received.includes('after'));
      expect(received).toEqual(['now', 'after']);
      clock.advance(60_001);
      await eventually('the delayed message once due', () => received.includes('later'));
    });

    it('keeps the order within a key while other keys go on', async () => {
      const b = await bus();
      const stream = await freshStream(b);
      for (let n = 0; n < 20; n += 1)
        await b.publish(stream, [{ key: n % 2 ? 'odd' : 'even', id: `m${n}`, value: { n } }]);
      const byKey = new Map<string, number[]>();
      consume(b, stream, `g-${randomUUID()}`, async (m) => {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
        byKey.set(m.key, [...(byKey.get(m.key) ?? []), (m.value as { n: number }).n]);
      });
      await eventually('all twenty', () => [...byKey.values()].flat().length === 20);
      expect(byKey.get('even')).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
      expect(byKey.get('odd')).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
    });

    it('does not stop other keys while one key has many messages queued behind a slow one', async () => {
      const b = await bus();
      const stream = await freshStream(b);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const handled: string[] = [];
      const subscription = consume(
        b,
        stream,
        `g-${randomUUID()}`,
        async (m) => {
          if (m.key === 'slow') await gate;
          handled.push(m.id);
        },
        2,
      );
      await subscription.ready;
      await b.publish(
        stream,
        Array.from({ length: 12 }, (_, n) => ({ key: 'slow', id: `slow-${n}`, value: { n } })),
      );
      await b.publish(
        stream,
        Array.from({ length: 4 }, (_, n) => ({ key: `other-${n}`, id: `other-${n}`, value: { n } })),
      );
      await eventually(
        'the other keys while the slow one is stuck',
        () => handled.filter((id) => id.startsWith('other')).length === 4,
      );
      expect(handled.filter((id) => id.startsWith('slow'))).toEqual([]);
      release();
      await eventually('the slow key, in order', () => handled.filter((id) => id.startsWith('slow')).length === 12);
      expect(handled.filter((id) => id.startsWith('slow'))).toEqual(Array.from({ length: 12 }, (_, n) => `slow-${n}`));
    });

    it('drains without waiting for a message parked until its not_before, which stays uncommitted', async () => {
      const b = await bus();
      const stream = await freshStream(b);
      const group = `g-${randomUUID()}`;
      const first: string[] = [];
      const subscription = consume(b, stream, group, async (m) => void first.push(m.id));
      await subscription.ready;
      await b.publish(stream, [{ key: 'k-later', id: 'later', value: { n: 1 }, notBefore: clock.now() + 3_600_000 }]);
      await b.publish(stream, [{ key: 'k-now', id: 'now', value: { n: 2 } }]);
      await eventually('the undelayed message', () => first.includes('now'));
      await subscription.drain(); // the clock never reaches not_before: it must not wait for it
      expect(first).toEqual(['now']);

      clock.advance(3_600_001);
      const second: string[] = [];
      consume(b, stream, group, async (m) => void second.push(m.id));
      await eventually('the parked message, uncommitted, handed out again', () => second.includes('later'));
    });

    it('shares the work among several consumers of one group', async () => {
      const b = await bus();
      const stream = await freshStream(b);
      const group = `g-${randomUUID()}`;
      const seen = { a: [] as string[], b: [] as string[] };
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const handler = (who: 'a' | 'b') => async (m: IncomingMessage) => {
        seen[who].push(m.id);
        await gate;
      };
      const subscriptions = [consume(b, stream, group, handler('a'), 2), consume(b, stream, group, handler('b'), 2)];
      await Promise.all(subscriptions.map((s) => s.ready));
      await b.publish(
        stream,
        Array.from({ length: 24 }, (_, n) => ({ key: `key-${n}`, id: `m${n}`, value: { n } })),
      );
      await eventually('both consumers working', () => seen.a.length > 0 && seen.b.length > 0, 30_000);
      release();
      await eventually('every message once the gate opened', () => new Set([...seen.a, ...seen.b]).size === 24, 30_000);
    });
  });
}
