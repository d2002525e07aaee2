// The sharded deployment the shard fault suite breaks: a private Kafka broker, `shards` cores
// (`--role core`, shard 0 to n − 1 of 64 slots, each on a store file of its own), fronts side by side
// (`--role front`) and two workers serving every shard (`--role worker`), each a process of the
// built bin/gateway.js. Companies are created through a front, which gives them to the shards in
// turn, each with a bot-style channel and a webhook endpoint at a receiver that verifies every
// webhook. The test reads each core's store file (SQLite, WAL) beside it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { shardNamespace } from '../../src/config/cluster.js';
import { shardOfId } from '../../src/lib/shards.js';
import { Store } from '../../src/store/store.js';
import { emittedEvents } from '../helpers/events.js';
import { ADMIN_TOKEN } from '../helpers/gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { startPrivateBroker, type PrivateBroker } from '../helpers/private-broker.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';
import type { LoadTarget } from './callback-load.js';
import { freePort } from '../helpers/free-port.js';
import { setupCompany, type Company } from './fault-cluster.js';
import type { CoreView, Deployment } from './invariants.js';

export const SHARD_SLOTS = 64;
/** The log line of a consumer of gateway.events in the dispatcher's group: one per shard a worker serves. */
export const DISPATCHER_JOINED = '"stream":"gateway.events","group":"gateway-dispatcher"';

export interface ShardClusterSettings {
  shards: number;
  fronts: number;
  companiesPerShard: number;
  /** GATEWAY_KAFKA_SESSION_TIMEOUT and GATEWAY_KAFKA_HEARTBEAT_INTERVAL of every process. */
  sessionTimeout: string;
  heartbeatInterval: string;
}

/** How many times `needle` occurs in `text` after `from`. */
export function occurrences(text: string, needle: string, from = 0): number {
  let count = 0;
  for (let at = text.indexOf(needle, from); at >= 0; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

export class ShardFaultCluster implements Deployment, LoadTarget {
  readonly cores: GatewayProcess[] = [];
  readonly fronts: (GatewayProcess | null)[] = [];
  readonly workers: (GatewayProcess | null)[] = [null, null];
  readonly stores: Store[] = [];
  readonly companies: Company[] = [];
  private readonly setupEvents: number[] = [];

  private constructor(
    readonly broker: PrivateBroker,
    readonly receiver: Receiver,
    private readonly dataDir: string,
    private readonly corePorts: number[],
    private readonly frontPorts: number[],
    private readonly apiToken: string,
    readonly settings: ShardClusterSettings,
  ) {}

  static async start(settings: ShardClusterSettings): Promise<ShardFaultCluster> {
    const broker = await startPrivateBroker('gateway-shard-faults-kafka');
    const secrets: string[] = [];
    const receiver = await startReceiver(() => secrets);
    const ports = async (n: number) => {
      const list: number[] = [];
      for (let i = 0; i < n; i += 1) list.push(await freePort());
      return list;
    };
    const cluster = new ShardFaultCluster(
      broker,
      receiver,
      fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-shard-faults-')),
      await ports(settings.shards),
      await ports(settings.fronts),
      `gwk_${randomBytes(16).toString('hex')}`,
      settings,
    );
    const shards = [...Array(settings.shards).keys()];
    for (const shard of shards) fs.mkdirSync(cluster.coreDir(shard));
    // A front reaches for a core only when a request comes, so fronts and cores start together.
    await Promise.all([
      ...shards.map((shard) => cluster.startCore(shard)),
      ...[...Array(settings.fronts).keys()].map((i) => cluster.startFront(i)),
    ]);
    for (const shard of shards) cluster.stores.push(Store.open(path.join(cluster.coreDir(shard), 'gateway.db')));
    // The workers join their groups while the companies are set up: events of the setup find no endpoint either way.
    const workersReady = Promise.all([cluster.startWorker(0), cluster.startWorker(1)]);
    workersReady.catch(() => {}); // awaited below; a failed setup must not leave it unhandled
    const count = settings.shards * settings.companiesPerShard;
    for (let i = 0; i < count; i += 1)
      cluster.companies.push(await setupCompany(cluster.entryUrls[0]!, cluster.apiToken, receiver.url, i));
    secrets.push(...cluster.companies.map((c) => c.webhookSecret));
    for (const shard of shards) {
      const own = cluster.companies.filter((c) => cluster.shardOf(c.channelId) === shard).length;
      if (own !== settings.companiesPerShard) throw new Error(`shard ${shard} got ${own} of the ${count} companies`);
      cluster.setupEvents.push(emittedEvents(cluster.stores[shard]!).length);
    }
    await workersReady;
    return cluster;
  }

  /** The shard that owns a company's or channel's id. */
  shardOf(id: number): number {
    return shardOfId(id, SHARD_SLOTS);
  }

  /** Callbacks enter at the fronts, in turn. */
  get entryUrls(): string[] {
    return this.frontPorts.map((port) => `http://127.0.0.1:${port}`);
  }

  /** The topic prefix of each shard's streams, for the offset watcher. */
  get namespaces(): string[] {
    return this.corePorts.map((_, shard) => shardNamespace('', shard, SHARD_SLOTS));
  }

  coreViews(): CoreView[] {
    return this.stores.map((store, shard) => ({
      store,
      setupEvents: this.setupEvents[shard]!,
      baseUrl: this.coreUrl(shard),
    }));
  }

  coreUrl(shard: number): string {
    return `http://127.0.0.1:${this.corePorts[shard]}`;
  }

  private coreDir(shard: number): string {
    return path.join(this.dataDir, `shard-${shard}`);
  }

  private env(): Record<string, string> {
    return {
      GATEWAY_KAFKA_BROKERS: this.broker.brokers,
      GATEWAY_KAFKA_SESSION_TIMEOUT: this.settings.sessionTimeout,
      GATEWAY_KAFKA_HEARTBEAT_INTERVAL: this.settings.heartbeatInterval,
      GATEWAY_SHARD_SLOTS: String(SHARD_SLOTS),
      GATEWAY_CLUSTER_SHARDS: String(this.settings.shards),
      GATEWAY_PUBLIC_URL: this.entryUrls[0]!,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0,1s,2s,5s,10s',
      GATEWAY_LOG_LEVEL: 'info',
    };
  }

  /** Starts shard `shard`'s core on its port and store (again after a crash: same data, same port). */
  async startCore(shard: number): Promise<void> {
    this.cores[shard] = await startGatewayProcess('core', {
      ...this.env(),
      GATEWAY_SHARD: String(shard),
      GATEWAY_DATA_DIR: this.coreDir(shard),
      GATEWAY_PORT: String(this.corePorts[shard]),
      GATEWAY_BOOTSTRAP_TOKEN: this.apiToken,
    });
  }

  /** Starts front `i` on its port (again after a crash: same port). */
  async startFront(i: number): Promise<void> {
    this.fronts[i] = await startGatewayProcess('front', {
      ...this.env(),
      GATEWAY_SHARD_URLS: this.corePorts.map((_, shard) => this.coreUrl(shard)).join(','),
      GATEWAY_PORT: String(this.frontPorts[i]),
    });
  }

  /** Starts worker `i` and waits until it took part in the dispatcher's group of every shard. */
  async startWorker(i: number): Promise<void> {
    const worker = await startGatewayProcess('worker', { ...this.env(), GATEWAY_WORKER_PORT: '0' });
    await eventually(
      `worker ${i} in the dispatcher's group of every shard`,
      () => occurrences(worker.output(), DISPATCHER_JOINED) >= this.settings.shards,
      60_000,
    );
    this.workers[i] = worker;
  }

  /** Every process this cluster runs now. */
  processes(): GatewayProcess[] {
    return [...this.cores, ...this.fronts, ...this.workers].filter((p): p is GatewayProcess => p !== null);
  }

  /** The output of every process of the cluster, for a failure's message. */
  outputs(): string {
    return this.processes()
      .map((p) => `----- ${p.role} (pid ${p.child.pid}) -----\n${p.output().slice(-3_000)}`)
      .join('\n');
  }

  async close(): Promise<void> {
    await Promise.all(this.processes().map((p) => p.stop()));
    for (const store of this.stores) store.close();
    await this.receiver.close();
    await this.broker.remove();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}
