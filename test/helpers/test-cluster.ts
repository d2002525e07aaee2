// The cluster target of startTestGateway (GATEWAY_TEST_TARGET=cluster, `npm run test:cluster`): the
// layout `npm run cluster` starts, in the test process. Three cores (shards 0–2 of 64 slots, as
// `gateway cluster` gives them) on the shared test broker under a fresh namespace, one worker that
// serves every shard (none when the test asked for role 'core'), and a front whose URL is the
// test's `baseUrl` and every process's public URL. The same black-box files run against it as
// against one daemon (vitest.cluster.config.ts).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { inject } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createAccount } from '../../src/domain/directory.js';
import { digestApiToken, generateApiToken, tokenPrefix } from '../../src/domain/tokens.js';
import { createLogger } from '../../src/log.js';
import { startFront } from '../../src/roles/front-role.js';
import { startGateway, type RunningGateway } from '../../src/roles/server.js';
import { startWorker } from '../../src/roles/worker-role.js';
import { systemClock } from '../../src/streams/stream.js';
import { checkEmittedEvents } from './events.js';
import { freePort } from './free-port.js';
import { gatewayClient } from './gateway-client.js';
import { routesOf, type TestGateway, type TestGatewayOptions } from './gateway.js';
import { eventually } from './wait.js';

export const CLUSTER_SHARDS = 3;
/** The slots of the cluster's ids: an id's shard is shardOfId(id, SHARD_SLOTS) (src/lib/shards.ts). */
export const SHARD_SLOTS = 64;

/** Thrown by what a cluster has no single one of: a test that reads it is not black-box. */
function notBlackBox(what: string): never {
  throw new Error(
    `this test reads ${what}: it is not black-box, so it cannot run against a cluster (GATEWAY_TEST_TARGET=cluster). ` +
      'Assert through the API, or list the file as single-daemon-only in vitest.cluster.config.ts.',
  );
}

export async function startTestCluster(env: Record<string, string>, options: TestGatewayOptions): Promise<TestGateway> {
  if (options.clock !== undefined && options.clock !== systemClock)
    throw new Error('a test that moves a clock by hand needs a single daemon: list it in vitest.cluster.config.ts');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-cluster-test-'));
  const token = generateApiToken();
  const frontPort = await freePort();
  const baseUrl = `http://127.0.0.1:${frontPort}`;
  const common: Record<string, string> = {
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_BOOTSTRAP_TOKEN: token,
    GATEWAY_LOG_LEVEL: 'info',
    GATEWAY_API_RATE_LIMIT_FACTOR: '1000',
    GATEWAY_KAFKA_BROKERS: inject('kafkaBrokers'),
    GATEWAY_KAFKA_NAMESPACE: `cluster-${randomUUID().slice(0, 8)}.`,
    GATEWAY_SHARD_SLOTS: String(SHARD_SLOTS),
    GATEWAY_CLUSTER_SHARDS: String(CLUSTER_SHARDS),
    GATEWAY_PUBLIC_URL: baseUrl,
    ...env,
  };
  const lines: string[] = [];
  const loggerOf = (name: string, level = common.GATEWAY_LOG_LEVEL as 'info') => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    return createLogger(level, sink, { traceFields: options.traceFields }).child({ process: name });
  };
  const dataDir = (name: string) => {
    const dir = path.join(root, name);
    fs.mkdirSync(dir);
    return dir;
  };

  const cores: RunningGateway[] = [];
  const stops: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const stop of stops.reverse()) await stop();
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    const started = await Promise.all(
      Array.from({ length: CLUSTER_SHARDS }, (_, shard) => {
        const config = loadConfig({
          ...common,
          GATEWAY_PORT: '0',
          GATEWAY_SHARD: String(shard),
          GATEWAY_DATA_DIR: dataDir(`shard-${shard}`),
        });
        return startGateway(config, loggerOf(`core-${shard}`), { role: 'core', clock: options.clock });
      }),
    );
    cores.push(...started);
    stops.push(...cores.map((core) => () => core.close()));
    const shardUrls = cores.map((core) => `http://127.0.0.1:${core.port}`).join(',');
    if (options.role !== 'core') {
      const workerConfig = loadConfig({ ...common, GATEWAY_PORT: '0', GATEWAY_DATA_DIR: dataDir('worker-0') });
      const worker = await startWorker(workerConfig, loggerOf('worker-0'));
      stops.push(() => worker.close());
    }
    const frontConfig = loadConfig({
      ...common,
      GATEWAY_PORT: String(frontPort),
      GATEWAY_SHARD_URLS: shardUrls,
      GATEWAY_DATA_DIR: dataDir('front'),
    });
    const front = await startFront(frontConfig, loggerOf('front'));
    stops.push(() => front.close());
  } catch (error) {
    await closeAll();
    throw error;
  }

  const client = gatewayClient(baseUrl, token);
  return {
    target: 'cluster',
    baseUrl,
    token,
    get gateway(): RunningGateway {
      return notBlackBox('the gateway object of one daemon');
    },
    get store(): never {
      return notBlackBox('a store');
    },
    get dataDir(): string {
      return notBlackBox('the data dir of one daemon');
    },
    everyStore: () => cores.map((core) => core.store),
    // Every core registers the same routes (the front serves them all).
    webRoutes: () => routesOf(cores[0]!.webRouter),
    apiRoutes: () => routesOf(cores[0]!.router),
    logText: () => lines.join(''),
    ...client,
    async createAccount(name = 'other') {
      // As `gateway token create` does beside a running core: written with its directory change on
      // shard 0, published by its relay; answered once every shard accepts the token.
      const other = generateApiToken();
      const store = cores[0]!.store;
      store.transaction(() => createAccount(store, name, digestApiToken(other), tokenPrefix(other)));
      await eventually(
        `account "${name}" known to every shard`,
        async () => {
          const answers = await Promise.all(
            cores.map((core) =>
              fetch(`http://127.0.0.1:${core.port}/p1/companies`, { headers: { 'x-private-api-token': other } }),
            ),
          );
          await Promise.all(answers.map((answer) => answer.arrayBuffer()));
          return answers.every((answer) => answer.status === 200);
        },
        10_000,
      );
      return other;
    },
    async close() {
      // Every event any shard emitted must match its schema, whether or not a test read it.
      let invalidEvent: unknown;
      try {
        for (const core of cores) if (core.store.db.open) checkEmittedEvents(core.store);
      } catch (error) {
        invalidEvent = error;
      }
      await closeAll();
      if (invalidEvent !== undefined) throw invalidEvent as Error;
    },
  };
}
