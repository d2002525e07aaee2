import { BASE_URL_PATTERN, parseInteger, splitList, type ReadSetting } from './settings.js';

/** Where a process stands in a sharded cluster (docs/scaling.md); a single daemon keeps the defaults. */
export interface ClusterSettings {
  /** GATEWAY_SHARD: the shard a core serves, from 0 to GATEWAY_SHARD_SLOTS − 1. Default 0. */
  shard: number;
  /**
   * GATEWAY_SHARD_SLOTS: how many shards the cluster's integer ids are spread over (src/lib/shards.ts).
   * Fixed for the life of a cluster and at least the number of shards it will ever have; the same in
   * every process. Default 1: a single daemon, ids 1, 2, 3 …
   */
  shardSlots: number;
  /**
   * GATEWAY_CLUSTER_SHARDS: how many shards the cluster runs (0 to n − 1); a worker consumes the
   * streams of each, `gateway cluster` starts as many cores. Default 1.
   */
  clusterShards: number;
  /**
   * GATEWAY_SHARD_URLS: a front's comma-separated base URLs of the shards' cores, in shard order
   * (the first serves shard 0). Empty for every other process.
   */
  shardUrls: string[];
}

export const MAX_SHARD_SLOTS = 1024;

export function readClusterSettings(read: ReadSetting, problems: string[]): ClusterSettings {
  const shardSlots = parseInteger(read('GATEWAY_SHARD_SLOTS'), 1);
  if (shardSlots === null || shardSlots < 1 || shardSlots > MAX_SHARD_SLOTS) {
    problems.push(
      `GATEWAY_SHARD_SLOTS must be an integer from 1 to ${MAX_SHARD_SLOTS} (got "${read('GATEWAY_SHARD_SLOTS')}")`,
    );
  }
  const slots = shardSlots ?? 1;
  const shard = parseInteger(read('GATEWAY_SHARD'), 0);
  if (shard === null || shard >= slots) {
    problems.push(
      `GATEWAY_SHARD must be an integer from 0 to GATEWAY_SHARD_SLOTS − 1 = ${slots - 1} (got "${read('GATEWAY_SHARD')}")`,
    );
  }
  const clusterShards = parseInteger(read('GATEWAY_CLUSTER_SHARDS'), 1);
  if (clusterShards === null || clusterShards < 1 || clusterShards > slots) {
    problems.push(
      `GATEWAY_CLUSTER_SHARDS must be an integer from 1 to GATEWAY_SHARD_SLOTS = ${slots} (got "${read('GATEWAY_CLUSTER_SHARDS')}")`,
    );
  }
  const shardUrls = splitList(read('GATEWAY_SHARD_URLS') ?? '').map((url) => url.replace(/\/+$/, ''));
  const badUrls = shardUrls.filter((url) => !BASE_URL_PATTERN.test(url));
  if (badUrls.length > 0)
    problems.push(
      `GATEWAY_SHARD_URLS must be a comma-separated list of http(s) base URLs (bad: ${badUrls.join(', ')})`,
    );
  if (shardUrls.length > slots)
    problems.push(`GATEWAY_SHARD_URLS names ${shardUrls.length} shards, more than GATEWAY_SHARD_SLOTS (${slots})`);
  return { shard: shard ?? 0, shardSlots: slots, clusterShards: clusterShards ?? 1, shardUrls };
}

/**
 * The topic prefix of one shard's streams: the cluster's namespace followed by `shard<n>.` when the
 * ids are spread over more than one slot; a single daemon's namespace unchanged.
 */
export function shardNamespace(namespace: string, shard: number, slots: number): string {
  return slots === 1 ? namespace : `${namespace}shard${shard}.`;
}
