/**
 * The workers the front shows on the pipeline page (GATEWAY_WORKER_URLS, docs/configuration.md).
 * Each URL's host name is expanded to every address it resolves to, and each address's /healthz is
 * asked: so one name that resolves to every worker (a Kubernetes headless Service over the workers'
 * Deployment) lists them all, however many run, with no list kept by hand. A worker that does not
 * answer in time is `down`.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { request } from 'undici';
import type { WorkerState } from './pipeline-view.js';

/** Resolves a host name to its addresses (node:dns by default; a test gives its own). */
export type ResolveHost = (host: string) => Promise<string[]>;

/** Every IPv4 address of a name, else every IPv6 one (a name with both, as localhost, is one worker, not two). */
export const resolveHost: ResolveHost = async (host) => {
  const found = await lookup(host, { all: true, verbatim: true });
  const v4 = found.filter((a) => a.family === 4).map((a) => a.address);
  return v4.length > 0 ? v4 : found.map((a) => a.address);
};

/** The base URLs of one configured URL: itself for an address, else one per address its host resolves to. */
export async function expandWorkerUrl(base: string, resolve: ResolveHost): Promise<string[]> {
  const url = new URL(base);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return [url.origin];
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    // A name that does not resolve (no worker runs behind it now): shown as the name, down.
    return [url.origin];
  }
  return [...new Set(addresses)].map((address) => {
    const each = new URL(url.origin);
    each.hostname = isIP(address) === 6 ? `[${address}]` : address;
    return each.origin;
  });
}

/** Asks one worker's /healthz: `ok`, `recovering` while a Kafka client of it is recreated, `unhealthy` for another status, `down` without an answer. */
async function workerHealth(base: string, timeoutMs: number): Promise<WorkerState> {
  try {
    const response = await request(`${base}/healthz`, {
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await response.body.json().catch(() => null)) as {
      kafka_clients?: { recovering?: unknown[] };
    } | null;
    if (response.statusCode !== 200) return { address: base, status: 'unhealthy' };
    const recovering = body?.kafka_clients?.recovering ?? [];
    return { address: base, status: recovering.length > 0 ? 'recovering' : 'ok' };
  } catch {
    return { address: base, status: 'down' };
  }
}

/** Every configured worker's health, in the order of the settings and their addresses. */
export async function probeWorkers(
  urls: readonly string[],
  timeoutMs: number,
  resolve: ResolveHost = resolveHost,
): Promise<WorkerState[]> {
  const bases = (await Promise.all(urls.map((url) => expandWorkerUrl(url, resolve)))).flat();
  return Promise.all([...new Set(bases)].map((base) => workerHealth(base, timeoutMs)));
}
