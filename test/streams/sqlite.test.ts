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
