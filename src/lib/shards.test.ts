import { describe, expect, it } from 'vitest';
import { idOfShard, nextIdOfShard, shardOfId } from './shards.js';

describe('ids that carry their shard', () => {
  it('with one slot, ids are 1, 2, 3 … on shard 0', () => {
    expect([1, 2, 3].map((n) => idOfShard(n, 0, 1))).toEqual([1, 2, 3]);
    expect([1, 2, 3, 1000].map((id) => shardOfId(id, 1))).toEqual([0, 0, 0, 0]);
    expect(nextIdOfShard(0, 0, 1)).toBe(1);
    expect(nextIdOfShard(41, 0, 1)).toBe(42);
  });

  it('spreads each shard over its own residue and routes it back by arithmetic', () => {
    const slots = 64;
    for (const shard of [0, 1, 2, 63]) {
      const ids = [1, 2, 3, 500].map((n) => idOfShard(n, shard, slots));
      expect(ids[0]).toBe(shard + 1);
      expect(ids[1]).toBe(shard + 1 + slots);
      expect(ids.map((id) => shardOfId(id, slots))).toEqual([shard, shard, shard, shard]);
    }
  });

  it('the next id of a shard is the smallest of its ids above the given one', () => {
    expect(nextIdOfShard(0, 2, 64)).toBe(3);
    expect(nextIdOfShard(3, 2, 64)).toBe(67);
    expect(nextIdOfShard(66, 2, 64)).toBe(67);
    expect(nextIdOfShard(67, 2, 64)).toBe(131);
    expect(nextIdOfShard(200, 2, 64)).toBe(259);
  });
});
