import { settingReaders, type ReadSetting } from './settings.js';

/** How a `--role front` process reaches the shards (docs/configuration.md, docs/scaling.md "The front"). */
export interface FrontSettings {
  /**
   * GATEWAY_FRONT_CONNECT_TIMEOUT: how long the front waits for a connection to a shard's core
   * before it holds the shard down (its requests answer 503 with Retry-After at once, and a probe
   * reaches for it in the background). Default 1s.
   */
  frontConnectTimeoutMs: number;
  /** GATEWAY_FRONT_CONNECTIONS: keep-alive connections from a front to each shard. Default 64. */
  frontConnections: number;
}

export function readFrontSettings(read: ReadSetting, problems: string[]): FrontSettings {
  const setting = settingReaders(read, problems);
  return {
    frontConnectTimeoutMs: setting.duration('GATEWAY_FRONT_CONNECT_TIMEOUT', 1_000, 50, '500ms or 2s'),
    frontConnections: setting.integer('GATEWAY_FRONT_CONNECTIONS', 64, 1, 10_000),
  };
}
