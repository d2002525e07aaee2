// The embedded (SQLite) stream bus and its log: the conformance suite every StreamBus passes
// (docs/design.md, 3. Streams), what a restart and the migration from the claim-based log keep,
// backlogs larger than memory, and a fresh publish handed out before the event loop turns again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/engine/db.js';
import { MIGRATIONS, migrate } from '../../src/store/engine/migrate.js';
import { SqliteStreamBus } from '../../src/streams/sqlite/sqlite-stream.js';
import type { IncomingMessage } from '../../src/streams/stream.js';
import { Store } from '../../src/store/store.js';
import { memoryLogger } from '../helpers/wait.js';
import { streamConformance } from './conformance.js';
import { storeFilesPerTest, storedIds, until } from './sqlite-fixtures.js';

streamConformance(
  'SQLite',
  async (clock) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-streams-'));
    const store = Store.open(path.join(dir, 'gateway.db'));
    const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger, { clock, pollMs: 20 });
    return {
      bus,
      async close() {
        await bus.close();
        store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { leaseMs: 30_000 },
);

const storeFile = storeFilesPerTest();

describe('SQLite streams across a restart', () => {
  it('deletes what was committed and hands out everything else again from the store at the next start', async () => {
    const file = storeFile();
    let store = Store.open(file);
    let bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger, { pollMs: 20 });
    await bus.publish(
      's',
      ['m1', 'm2', 'm3'].map((id, n) => ({ key: `k${n}`, id, value: { n } })),
    );
    const first: string[] = [];
    const dying = bus.subscribe({
      stream: 's',
      group: 'g',
      handler: async (m) => {
        first.push(m.id);
        if (m.id !== 'm1') await new Promise<void>(() => {}); // the process dies while handling these
      },
    });
    await until('all three started', () => first.length === 3);
    await until('m1 committed', () => !storedIds(store).includes('m1'));
    expect(storedIds(store)).toEqual(['m2', 'm3']);
    await dying.stop();
    store.close();

    store = Store.open(file);
    bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger, { pollMs: 20 });
    const second: IncomingMessage[] = [];
    const subscription = bus.subscribe({ stream: 's', group: 'g', handler: async (m) => void second.push(m) });
    await until('the two uncommitted', () => second.length === 2);
    expect(second.map((m) => [m.id, m.key, m.value])).toEqual([
      ['m2', 'k1', { n: 1 }],
      ['m3', 'k2', { n: 2 }],
    ]);
    await subscription.drain();
    expect(storedIds(store)).toEqual([]);
    store.close();
  });

  it('refuses a second consumer group on one embedded stream', () => {
    const store = Store.open(storeFile());
    const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger);
    const first = bus.subscribe({ stream: 's', group: 'g', handler: async () => {} });
    expect(() => bus.subscribe({ stream: 's', group: 'other', handler: async () => {} })).toThrow(
      'The embedded stream s is consumed by group g; it takes one group only.',
    );
    void first.stop();
    store.close();
  });

  it('migration 7 keeps the uncommitted messages of the claim-based log, with their seqs, and drops the committed ones', () => {
    const db = openDatabase(storeFile());
    migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 7),
    );
    const insert = db.prepare(
      'INSERT INTO stream_messages (seq, stream, key, message_id, value, not_before, created_at) VALUES (?, ?, ?, ?, ?, 0, 0)',
    );
    for (const [seq, id] of [
      [5, 'done'],
      [6, 'claimed'],
      [7, 'open'],
      [9, 'done-last'],
    ] as const)
      insert.run(seq, 's', 'k', id, '{}');
    const claim = db.prepare(
      'INSERT INTO stream_claims (group_name, seq, claimed_until, committed_at) VALUES (?, ?, ?, ?)',
    );
    claim.run('g', 5, 0, 100);
    claim.run('g', 6, 999, null);
    claim.run('g', 9, 0, 100);
    migrate(db);
    expect(db.prepare('SELECT seq, message_id FROM stream_messages ORDER BY seq').all()).toEqual([
      { seq: 6, message_id: 'claimed' },
      { seq: 7, message_id: 'open' },
    ]);
    // Numbering goes on past every seq the old log handed out.
    db.prepare(
      "INSERT INTO stream_messages (stream, key, message_id, value, not_before, created_at) VALUES ('s', 'k', 'new', '{}', 0, 0)",
    ).run();
    expect(db.prepare<[], { seq: number }>("SELECT seq FROM stream_messages WHERE message_id = 'new'").get()!.seq).toBe(
      10,
    );
    db.close();
  });
});

describe('SQLite stream backlogs larger than memory', () => {
  it('hands out the messages of other keys behind a long backlog of one stuck key, then the stuck key in order', async () => {
    const store = Store.open(storeFile());
    const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger, { pollMs: 20 });
    const handled: string[] = [];
    let releaseStuck: () => void = () => {};
    const stuck = new Promise<void>((resolve) => (releaseStuck = resolve));
    try {
      // 3,000 messages of a key whose handler hangs (a hanging endpoint), then other keys.
      await bus.publish(
        's',
        Array.from({ length: 3_000 }, (_, i) => ({ key: 'stuck', id: `stuck-${i}`, value: { i } })),
      );
      await bus.publish(
        's',
        ['a', 'b', 'c'].map((key) => ({ key, id: `${key}-0`, value: {} })),
      );
      const subscription = bus.subscribe({
        stream: 's',
        group: 'g',
        maxInFlight: 8,
        handler: async (message) => {
          if (message.key === 'stuck') await stuck;
          handled.push(message.id);
        },
      });
      await until('the other keys', () => handled.length === 3);
      expect(handled.sort()).toEqual(['a-0', 'b-0', 'c-0']);
      // Published while the key is stuck: after its backlog, in order.
      await bus.publish('s', [{ key: 'stuck', id: 'stuck-3000', value: {} }]);
      releaseStuck();
      await until('the stuck key', () => handled.length === 3 + 3_001);
      expect(handled.slice(3)).toEqual(Array.from({ length: 3_001 }, (_, i) => `stuck-${i}`));
      await subscription.drain();
      expect(storedIds(store)).toEqual([]);
    } finally {
      releaseStuck();
      store.close();
    }
  });

  it('delivers a backlog of many keys once each, in order per key, while new messages keep coming', async () => {
    const store = Store.open(storeFile());
    const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger, { pollMs: 20 });
    try {
      const keys = 100;
      const message = (n: number) => ({ key: `k${n % keys}`, id: `m${n}`, value: { n } });
      await bus.publish(
        's',
        Array.from({ length: 12_000 }, (_, n) => message(n)),
      );
      const seen = new Map<string, number[]>();
      let count = 0;
      const subscription = bus.subscribe({
        stream: 's',
        group: 'g',
        maxInFlight: 16,
        handler: async (m) => {
          const { n } = m.value as { n: number };
          seen.set(m.key, [...(seen.get(m.key) ?? []), n]);
          count += 1;
        },
      });
      for (let n = 12_000; n < 13_000; n += 100)
        await bus.publish(
          's',
          Array.from({ length: 100 }, (_, i) => message(n + i)),
        );
      await until('every message', () => count >= 13_000, 30_000);
      await subscription.drain();
      expect(count).toBe(13_000);
      for (let k = 0; k < keys; k += 1)
        expect(seen.get(`k${k}`)).toEqual(Array.from({ length: 130 }, (_, i) => i * keys + k));
      expect(storedIds(store)).toEqual([]);
    } finally {
      store.close();
    }
  });
});

describe('SQLite streams: hand-out of a fresh publish', () => {
  it('hands a committed message to its consumer before the event loop turns again', async () => {
    const store = Store.open(storeFile());
    const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger, { pollMs: 1_000 });
    try {
      const order: string[] = [];
      const subscription = bus.subscribe({
        stream: 's',
        group: 'g',
        handler: async (m) => void order.push(`handled ${m.id}`),
      });
      await subscription.ready;
      // Idle for longer than the group commit's gap: the publish commits in the next turn (setImmediate).
      await new Promise((resolve) => setTimeout(resolve, 20));
      const published = bus.publish('s', [{ key: 'k', id: 'm1', value: { n: 1 } }]);
      // Queued after the commit's turn: under load, I/O (more callbacks) is read between the two.
      setImmediate(() => order.push('next turn'));
      await published;
      await until('the probe', () => order.includes('next turn'));
      expect(order).toEqual(['handled m1', 'next turn']);
      await subscription.drain();
    } finally {
      store.close();
    }
  });
});
