import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { SqliteStreamBus } from '../../src/streams/sqlite-stream.js';
import { Store } from '../../src/store/store.js';
import { memoryLogger } from '../pipeline/wait.js';
import { streamConformance } from './conformance.js';

const LEASE_MS = 30_000;

streamConformance(
  'SQLite',
  async (clock) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-streams-'));
    const store = Store.open(path.join(dir, 'gateway.db'));
    const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger, { clock, leaseMs: LEASE_MS, pollMs: 20 });
    return {
      bus,
      async close() {
        await bus.close();
        store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { leaseMs: LEASE_MS },
);

describe('SQLite stream housekeeping', () => {
  it('prunes committed messages only, and releases the claims of a previous run at start', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-streams-'));
    const store = Store.open(path.join(dir, 'gateway.db'));
    try {
      const now = 1_000_000;
      store.streamMessages.append('s', [1, 2, 3].map((n) => ({ key: `k${n}`, messageId: `m${n}`, value: '{}', notBefore: 0 })), now);
      const [first, second] = store.streamMessages.claim('s', 'g', 2, now, 60_000);
      store.streamMessages.commit('g', first!.seq, now);
      expect(store.streamMessages.prune(now + 1)).toBe(1);
      // The second is claimed by a "dead" run; the third was never claimed: both stay.
      expect(store.streamMessages.claim('s', 'g', 10, now, 60_000).map((r) => r.message_id)).toEqual(['m3']);
      expect(store.streamMessages.releaseClaims()).toBe(2);
      expect(store.streamMessages.claim('s', 'g', 10, now, 60_000).map((r) => r.message_id)).toEqual([second!.message_id, 'm3']);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite stream isolation', () => {
  it('hands out the messages of other keys behind a long backlog of one stuck key', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-streams-'));
    const store = Store.open(path.join(dir, 'gateway.db'));
    const bus = new SqliteStreamBus(store.streamMessages, memoryLogger().logger, { leaseMs: LEASE_MS, pollMs: 20 });
    const handled: string[] = [];
    let releaseStuck: () => void = () => {};
    const stuck = new Promise<void>((resolve) => (releaseStuck = resolve));
    try {
      // 3,000 messages of a key whose handler never returns (a hanging endpoint), then other keys.
      await bus.publish('s', Array.from({ length: 3_000 }, (_, i) => ({ key: 'stuck', id: `stuck-${i}`, value: { i } })));
      await bus.publish('s', ['a', 'b', 'c'].map((key) => ({ key, id: `${key}-0`, value: {} })));
      const subscription = bus.subscribe({
        stream: 's',
        group: 'g',
        maxInFlight: 8,
        handler: async (message) => {
          if (message.key === 'stuck') return stuck;
          handled.push(message.id);
        },
      });
      const deadline = Date.now() + 10_000;
      while (handled.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(handled.sort()).toEqual(['a-0', 'b-0', 'c-0']);
      releaseStuck();
      await subscription.drain();
    } finally {
      releaseStuck();
      await bus.close();
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
