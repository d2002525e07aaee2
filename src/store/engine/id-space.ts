/**
 * The integer ids a store hands out to what routes a request from outside (companies, channels and
 * auths): those of its shard, so that any process finds the shard from the id alone
 * (src/lib/shards.ts). A single daemon's space is shard 0 of one slot: 1, 2, 3 …
 */
export interface IdSpace {
  shard: number;
  slots: number;
}

export const SINGLE_SHARD: IdSpace = { shard: 0, slots: 1 };

/**
 * SQL for the next id of the space in `table`, the smallest of the shard's ids above the largest
 * there; as SQLite's own rowid choice does, an id freed at the top is handed out again.
 */
export function nextIdSql(table: string, space: IdSpace): string {
  const first = space.shard + 1;
  return `(SELECT CASE WHEN MAX(id) IS NULL OR MAX(id) < ${first} THEN ${first}
    ELSE ((MAX(id) - ${first}) / ${space.slots} + 1) * ${space.slots} + ${first} END FROM ${table})`;
}
