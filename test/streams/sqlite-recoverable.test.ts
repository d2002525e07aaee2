// Recoverable messages on the embedded (SQLite) stream bus: kept in memory only while the consumer
// keeps up, given a row in the log when they would wait there (no consumer in this process, a backlog
// of the log, memory half full, a stuck key), and taken by a consumer's direct handling as they commit.
import { describe, expect, it } from 'vitest';
import { SqliteStreamBus } from '../../src/streams/sqlite/sqlite-stream.js';
import type { IncomingMessage } from '../../src/streams/stream.js';
import { Store } from '../../src/store/store.js';
import { memoryLogger } from '../helpers/wait.js';
import { storeFilesPerTest, storedIds, until } from './sqlite-fixtures.js';

const storeFile = storeFilesPerTest();

/**
 * One turn of the event loop, for what the turn before queued: the feed reads the log in the turn its
 * subscribe scheduled (sqlite-feed.ts), and a key's runner lets go of it a few promise steps after
 * its message settled (keyed-runner.ts).
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Rows ever appended to the log (its AUTOINCREMENT counter): 0 when every message went without one. */
const everAppended = (store: Store) =>
  store.db.prepare<[], { seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'stream_messages'").get()?.seq ??
  0;

describe('SQLite streams: recoverable messages', () => {
  const recoverable = (key: string, id: string, n: number) => ({ key, id, value: { n }, recoverable: true as const });
  /**
   * A consumer of stream 's' whose handler waits, for the keys `hangs` names, until released; answered
   * once its feed has read the (empty) log, so that nothing older waits there.
   */
  async function gatedConsumer(store: Store, hangs: (key: string) => boolean, maxInFlight?: number) {
    const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger, { pollMs: 20 });
    const handled: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const subscription = bus.subscribe({
      stream: 's',
      group: 'g',
      maxInFlight,
      handler: async (m) => {
        if (hangs(m.key)) await gate;
        handled.push(m.id);
      },
    });
    await nextTurn();
    return { bus, handled, release, subscription };
  }
  const stuckKeyConsumer = (store: Store, maxInFlight?: number) =>
    gatedConsumer(store, (key) => key === 'stuck', maxInFlight);

  it('keeps them in memory only while the consumer keeps up: handed out in order, counted in the lag, no row ever written', async () => {
    const store = Store.open(storeFile());
    const { bus, handled, release, subscription } = await gatedConsumer(store, () => true);
    try {
      await bus.publish('s', [recoverable('k', 'r1', 1), recoverable('k', 'r2', 2), recoverable('other', 'r3', 3)]);
      expect(storedIds(store)).toEqual([]);
      expect(await bus.lag([{ stream: 's', group: 'g' }])).toEqual([{ stream: 's', group: 'g', messages: 3 }]);
      release();
      await until('all three', () => handled.length === 3);
      expect(handled.filter((id) => id !== 'r3')).toEqual(['r1', 'r2']);
      await subscription.drain();
      expect(await bus.lag([{ stream: 's', group: 'g' }])).toEqual([{ stream: 's', group: 'g', messages: 0 }]);
      expect(everAppended(store)).toBe(0);
    } finally {
      store.close();
    }
  });

  it('writes their rows when no consumer of the stream runs in this process', async () => {
    const store = Store.open(storeFile());
    const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger, { pollMs: 20 });
    await bus.publish('s', [recoverable('k', 'r1', 1)]);
    expect(storedIds(store)).toEqual(['r1']);
    store.close();
  });

  it("writes a stuck key's rows once a few wait in its lane, and keeps other keys' in memory only", async () => {
    const store = Store.open(storeFile());
    const { bus, handled, release: releaseStuck, subscription } = await stuckKeyConsumer(store);
    try {
      // One at a time, as a hanging endpoint's events come: the consumer holds 64, then 16 wait in memory only.
      for (let i = 0; i < 200; i += 1) await bus.publish('s', [recoverable('stuck', `stuck-${i}`, i)]);
      expect(storedIds(store)).toEqual(Array.from({ length: 200 - 80 }, (_, i) => `stuck-${80 + i}`));
      await bus.publish('s', [recoverable('other', 'other-0', 0)]);
      await until('the other key', () => handled.includes('other-0'));
      expect(storedIds(store)).not.toContain('other-0');
      releaseStuck();
      await until('the stuck key', () => handled.length === 201, 30_000);
      expect(handled.filter((id) => id !== 'other-0')).toEqual(Array.from({ length: 200 }, (_, i) => `stuck-${i}`));
      await subscription.drain();
      expect(storedIds(store)).toEqual([]);
    } finally {
      releaseStuck();
      store.close();
    }
  });

  it('writes their rows behind a backlog of the log, and behind what the same transaction appended first past half the memory', async () => {
    const store = Store.open(storeFile());
    const { bus, handled, release: releaseStuck, subscription } = await stuckKeyConsumer(store, 4);
    try {
      // One transaction (publishes of the same turn): 600 plain messages, then a recoverable one of their key.
      await Promise.all([
        bus.publish(
          's',
          Array.from({ length: 600 }, (_, i) => ({ key: 'stuck', id: `stuck-${i}`, value: { i } })),
        ),
        bus.publish('s', [recoverable('stuck', 'stuck-600', 600)]),
      ]);
      expect(storedIds(store)).toContain('stuck-600');
      // A key spilled past memory: the next recoverable message of it gets a row too, and waits its turn.
      await bus.publish(
        's',
        Array.from({ length: 1_000 }, (_, i) => ({ key: 'stuck', id: `stuck-${601 + i}`, value: { i } })),
      );
      await bus.publish('s', [recoverable('stuck', 'stuck-1601', 1601)]);
      expect(storedIds(store)).toContain('stuck-1601');
      releaseStuck();
      await until('the stuck key', () => handled.length === 1_602, 30_000);
      expect(handled).toEqual(Array.from({ length: 1_602 }, (_, i) => `stuck-${i}`));
      await subscription.drain();
      expect(storedIds(store)).toEqual([]);
    } finally {
      releaseStuck();
      store.close();
    }
  });
});

describe('SQLite streams: direct handling of recoverable messages', () => {
  const recoverable = (key: string, id: string) => ({ key, id, value: { id }, recoverable: true as const });
  const lagOf = async (bus: SqliteStreamBus) => (await bus.lag([{ stream: 's', group: 'g' }]))[0]!.messages;
  async function untilLag(bus: SqliteStreamBus, messages: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while ((await lagOf(bus)) !== messages) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for a lag of ${messages}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /**
   * A consumer of stream 's' whose direct handling takes what `takes` allows and finishes once
   * `finish` is called for the message; its handler waits, for the keys `hangs` names, until released.
   */
  async function directConsumer(
    store: Store,
    options: { takes: (m: IncomingMessage) => boolean; hangs?: (key: string) => boolean; fails?: boolean },
  ) {
    const log = memoryLogger();
    const bus = new SqliteStreamBus(store.streamMessages, log.logger, { pollMs: 20 });
    const direct: string[] = [];
    const handled: string[] = [];
    const finishing = new Map<string, () => void>();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const subscription = bus.subscribe({
      stream: 's',
      group: 'g',
      handler: async (m) => {
        handled.push(m.id);
        if (options.hangs?.(m.key)) await gate;
      },
      direct: (m) => {
        if (!options.takes(m)) return null;
        direct.push(m.id);
        return new Promise<void>((resolve, reject) =>
          finishing.set(m.id, () => (options.fails ? reject(new Error('poster gone')) : resolve())),
        );
      },
    });
    await nextTurn();
    const finish = (id: string) => finishing.get(id)!();
    return { bus, log, direct, handled, finish, release, subscription };
  }

  it('takes them as they are committed, each key in order, counted in the lag until handled, and a drain waits for them', async () => {
    const store = Store.open(storeFile());
    const { bus, direct, handled, finish, subscription } = await directConsumer(store, { takes: () => true });
    await bus.publish('s', [recoverable('a', 'a1'), recoverable('b', 'b1'), recoverable('a', 'a2')]);
    expect(direct).toEqual(['a1', 'b1', 'a2']);
    expect(handled).toEqual([]);
    expect(storedIds(store)).toEqual([]);
    expect(await lagOf(bus)).toBe(3);
    finish('a1');
    await untilLag(bus, 2);
    let drained = false;
    const draining = subscription.drain().then(() => (drained = true));
    finish('b1');
    await untilLag(bus, 1);
    expect(drained).toBe(false);
    finish('a2');
    await draining;
    expect(await lagOf(bus)).toBe(0);
    expect(handled).toEqual([]);
    store.close();
  });

  it("leaves to the handler what it declines, and a key's later messages while the handler holds the key", async () => {
    const store = Store.open(storeFile());
    const { bus, direct, handled, finish, release, subscription } = await directConsumer(store, {
      takes: (m) => m.id !== 'busy-1' && m.key !== 'marker',
      hangs: (key) => key === 'busy',
    });
    try {
      await bus.publish('s', [recoverable('busy', 'busy-1')]);
      await until('the declined one in the handler', () => handled.includes('busy-1'));
      // The runner holds the key: the next message of it waits there, behind the first.
      await bus.publish('s', [recoverable('busy', 'busy-2'), recoverable('free', 'free-1')]);
      expect(direct).toEqual(['free-1']);
      // A message of another key for the handler, published after them: handed out behind busy-2,
      // had busy-2 been handed out.
      await bus.publish('s', [recoverable('marker', 'marker-1')]);
      await until('the marker in the handler', () => handled.includes('marker-1'));
      expect(handled).toEqual(['busy-1', 'marker-1']);
      release();
      await until('busy-2 after busy-1', () => handled.length === 3);
      expect(handled).toEqual(['busy-1', 'marker-1', 'busy-2']);
      // The key is free again once its handler returned: its next message is taken directly.
      await untilLag(bus, 1);
      await nextTurn();
      await bus.publish('s', [recoverable('busy', 'busy-3')]);
      expect(direct).toEqual(['free-1', 'busy-3']);
      finish('free-1');
      finish('busy-3');
      await subscription.drain();
      expect(await lagOf(bus)).toBe(0);
      expect(everAppended(store)).toBe(0);
    } finally {
      release();
      store.close();
    }
  });

  it('logs a handling that failed and forgets the message, which its publisher makes again at the next start', async () => {
    const store = Store.open(storeFile());
    const { bus, log, direct, finish, subscription } = await directConsumer(store, { takes: () => true, fails: true });
    await bus.publish('s', [recoverable('a', 'a1')]);
    finish('a1');
    await subscription.drain();
    expect(direct).toEqual(['a1']);
    expect(await lagOf(bus)).toBe(0);
    expect(storedIds(store)).toEqual([]);
    const lines = log
      .text()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; message_id?: string });
    expect(
      lines.filter((line) => line.msg.startsWith('direct handling failed')).map((line) => line.message_id),
    ).toEqual(['a1']);
    store.close();
  });
});
