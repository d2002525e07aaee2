import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/config.js';
import { digestApiToken, generateApiToken } from '../../src/domain/tokens.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/roles/server.js';
import type { Store } from '../../src/store/store.js';
import type { Clock } from '../../src/streams/stream.js';
import { expect, inject } from 'vitest';
import { checkEmittedEvents } from './events.js';
import {
  ADMIN_TOKEN,
  gatewayClient,
  type GatewayClient,
  type RequestOptions,
  type TestResponse,
} from './gateway-client.js';
import { startTestCluster } from './test-cluster.js';

export { ADMIN_TOKEN, type RequestOptions, type TestResponse } from './gateway-client.js';

/** Settings of a gateway that delivers webhooks to the test's own receivers (test/helpers/receiver.ts), admin API on. */
export const TO_RECEIVERS: Record<string, string> = {
  GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
  GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1,localhost',
  GATEWAY_WEBHOOK_TIMEOUT: '10s',
};

/** The shared test broker (test/global-setup.ts) under a namespace of its own: give the same settings to a gateway's `--role worker` processes. */
export function kafkaStreams(prefix = 'test'): Record<string, string> {
  return {
    GATEWAY_KAFKA_BROKERS: inject('kafkaBrokers'),
    GATEWAY_KAFKA_NAMESPACE: `${prefix}-${randomUUID().slice(0, 8)}.`,
  };
}

/** A registered route: its method and its path with `:param` segments. */
export interface RegisteredRoute {
  method: string;
  path: string;
}

/** The routes of a router, HEAD left out (koa-router answers it with GET). */
export function routesOf(router: RunningGateway['router']): RegisteredRoute[] {
  return router.stack.flatMap((layer) =>
    layer.methods.filter((m) => m !== 'HEAD').map((method) => ({ method, path: String(layer.path) })),
  );
}

export interface TestGatewayOptions {
  /** Time source of the retry schedule: a ManualClock the test moves by hand; the system's by default. */
  clock?: Clock;
  /** 'all' (default) runs the webhook dispatcher too; 'core' leaves it to `--role worker` processes. */
  role?: 'all' | 'core';
  /** 'sqlite' (default) or 'kafka': the shared test broker under a fresh namespace, unless env names a broker and a namespace. */
  streams?: 'sqlite' | 'kafka';
  /** Log lines carry the trace and span ids (test/tracing). */
  traceFields?: boolean;
}

/**
 * The gateway a test talks to. With GATEWAY_TEST_TARGET=cluster (`npm run test:cluster`) it is a
 * 3-shard cluster behind a front (test/helpers/test-cluster.ts): there `gateway`, `store` and
 * `dataDir` have no single meaning and throw when read, so only black-box tests run against it.
 */
export interface TestGateway extends GatewayClient {
  /** 'single': one daemon in this process; 'cluster': cores, a worker and a front (GATEWAY_TEST_TARGET). */
  target: 'single' | 'cluster';
  baseUrl: string;
  gateway: RunningGateway;
  store: Store;
  /** API token of the bootstrap account (account 1). */
  token: string;
  dataDir: string;
  /**
   * The store of every process that keeps one: the daemon's, or each shard's of a cluster. For
   * invariants over the whole deployment alone (the cross-account walk's "no row changed
   * anywhere"), never to seed or read one company's state.
   */
  everyStore(): Store[];
  /** The console's and the portal's routes (method and path), as the gateway registers them in every process. */
  webRoutes(): RegisteredRoute[];
  /** The JSON API's routes (those /openapi.json describes), as the gateway registers them in every process. */
  apiRoutes(): RegisteredRoute[];
  /** Every log line the daemon (every process of a cluster) wrote, as text (to prove secrets never reach it). */
  logText(): string;
  /** Creates another account and answers its token, once every shard of a cluster accepts it. */
  createAccount(name?: string): Promise<string>;
  /** Closes the gateway, then fails if an event it emitted does not match its schema (test/helpers/events.ts). */
  close(): Promise<void>;
}

/** Which gateway startTestGateway starts: GATEWAY_TEST_TARGET=cluster for a 3-shard cluster, else one daemon. */
export function testTarget(): 'single' | 'cluster' {
  return process.env.GATEWAY_TEST_TARGET === 'cluster' ? 'cluster' : 'single';
}

/**
 * A real gateway in the test process (real Koa app, real SQLite file in a fresh temp dir, the
 * pipeline running) on a free loopback port; with GATEWAY_TEST_TARGET=cluster a 3-shard cluster
 * on the shared broker instead, its front's URL as `baseUrl`.
 */
export async function startTestGateway(
  env: Record<string, string> = {},
  options: TestGatewayOptions = {},
): Promise<TestGateway> {
  if (testTarget() === 'cluster') return startTestCluster(env, options);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-test-'));
  const token = generateApiToken();
  const config = loadConfig({
    GATEWAY_PORT: '0',
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_BOOTSTRAP_TOKEN: token,
    GATEWAY_LOG_LEVEL: 'info',
    // Tests call the API far faster than a client may; test/http/rate-limits.test.ts proves the documented values.
    GATEWAY_API_RATE_LIMIT_FACTOR: '1000',
    ...(options.streams === 'kafka' ? kafkaStreams() : {}),
    ...env,
  });
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const gateway = await startGateway(
    config,
    createLogger(config.logLevel, sink, { traceFields: options.traceFields }),
    { clock: options.clock, role: options.role },
  );
  const baseUrl = `http://127.0.0.1:${gateway.port}`;

  return {
    target: 'single',
    baseUrl,
    gateway,
    store: gateway.store,
    token,
    dataDir,
    everyStore: () => [gateway.store],
    webRoutes: () => routesOf(gateway.webRouter),
    apiRoutes: () => routesOf(gateway.router),
    logText: () => lines.join(''),
    ...gatewayClient(baseUrl, token),
    async createAccount(name = 'other') {
      const other = generateApiToken();
      gateway.store.transaction(() => gateway.store.accounts.createWithToken(name, digestApiToken(other)));
      return other;
    },
    async close() {
      // Every event this gateway emitted must match its schema, whether or not a test read it.
      let invalidEvent: unknown;
      try {
        if (gateway.store.db.open) checkEmittedEvents(gateway.store);
      } catch (error) {
        invalidEvent = error;
      }
      await gateway.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (invalidEvent !== undefined) throw invalidEvent as Error;
    },
  };
}

/** The contract's error body: asserts the shape and answers the entries. */
export function expectErrorShape(
  response: TestResponse,
  status: number,
  code: string,
): { detail: string; source?: { pointer: string } }[] {
  const errors = (response.body as { errors?: unknown })?.errors;
  if (response.status !== status || !Array.isArray(errors) || errors.length === 0) {
    throw new Error(`expected ${status} ${code} in the error shape, got ${response.status}: ${response.text}`);
  }
  for (const entry of errors as Record<string, unknown>[]) {
    const keys = Object.keys(entry).sort().join(',');
    if (!['code,detail,status,title', 'code,detail,source,status,title'].includes(keys)) {
      throw new Error(`error entry has unexpected keys ${keys}: ${response.text}`);
    }
    if (
      entry.status !== status ||
      entry.code !== code ||
      typeof entry.title !== 'string' ||
      typeof entry.detail !== 'string'
    ) {
      throw new Error(`error entry is not {status: ${status}, code: ${code}, ...}: ${response.text}`);
    }
  }
  return errors as { detail: string; source?: { pointer: string } }[];
}

/** The fields named by a 422 answer, as pointers without the leading slash. */
export function failingFields(response: TestResponse): string[] {
  return expectErrorShape(response, 422, 'validation_failed').map((e) => (e.source?.pointer ?? '').slice(1));
}

/**
 * `foreign` is the 404 a request about another account's company got: the same request about a
 * company that does not exist answers the same 404, so the answer tells nothing of whose it is.
 */
export async function expectAnsweredAsMissing(
  gw: GatewayClient,
  foreign: TestResponse,
  method: string,
  path: string,
  companyId: number,
  options: RequestOptions,
): Promise<void> {
  const missing = await gw.request(method, path.replace(`/companies/${companyId}/`, '/companies/999999/'), options);
  expectErrorShape(missing, 404, 'not_found');
  expect(foreign.body.errors[0].detail.replace(String(companyId), 'N')).toBe(
    missing.body.errors[0].detail.replace('999999', 'N'),
  );
}
