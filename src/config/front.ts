import { BASE_URL_PATTERN, splitList, type ReadSetting, settingReaders } from './settings.js';

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
  /**
   * GATEWAY_WORKER_URLS: a front's comma-separated base URLs of the workers' HTTP servers
   * (GATEWAY_WORKER_PORT), for the console's pipeline page. A host name stands for every address it
   * resolves to (IPv4, else IPv6): one name of a headless Service lists every worker of a
   * Deployment. Empty: the page lists no worker.
   */
  workerUrls: string[];
}

export function readFrontSettings(read: ReadSetting, problems: string[]): FrontSettings {
  const setting = settingReaders(read, problems);
  const workerUrls = splitList(read('GATEWAY_WORKER_URLS') ?? '').map((url) => url.replace(/\/+$/, ''));
  const badUrls = workerUrls.filter((url) => !BASE_URL_PATTERN.test(url));
  if (badUrls.length > 0)
    problems.push(
      `GATEWAY_WORKER_URLS must be a comma-separated list of http(s) base URLs (bad: ${badUrls.join(', ')})`,
    );
  return {
    workerUrls,
    frontConnectTimeoutMs: setting.duration('GATEWAY_FRONT_CONNECT_TIMEOUT', 1_000, 50, '500ms or 2s'),
    frontConnections: setting.integer('GATEWAY_FRONT_CONNECTIONS', 64, 1, 10_000),
  };
}
