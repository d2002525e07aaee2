/**
 * How integer ids carry their shard. A cluster spreads its ids over a fixed number of shard slots
 * (GATEWAY_SHARD_SLOTS, set once for the life of a cluster and larger than it will ever grow): the
 * shard of id n is (n - 1) mod slots, so any process routes a request by the id in its path with
 * arithmetic alone. With one slot (a single daemon) ids are 1, 2, 3 … as they always were.
 */

/** The shard that owns an integer id. */
export function shardOfId(id: number, slots: number): number {
  return (id - 1) % slots;
}

/** The `sequence`-th id (1-based) of `shard`: shard + 1, shard + 1 + slots, … */
export function idOfShard(sequence: number, shard: number, slots: number): number {
  return (sequence - 1) * slots + shard + 1;
}

/** The first id of `shard` above `id` (or its first id when `id` is below it). */
export function nextIdOfShard(id: number, shard: number, slots: number): number {
  const sequence = id < shard + 1 ? 1 : Math.floor((id - shard - 1) / slots) + 2;
  return idOfShard(sequence, shard, slots);
}
