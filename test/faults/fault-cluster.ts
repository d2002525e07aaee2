// The deployment the fault suite breaks: a private Kafka broker, one `--role core` process and two
// `--role worker` processes (the built bin/gateway.js), companies with a bot-style channel and a
// webhook endpoint each, set up through the APIs, and a receiver that verifies every webhook with
// the standardwebhooks package. The test reads the core's store file (SQLite, WAL) beside it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../../src/store/store.js';
import { emittedEvents } from '../helpers/events.js';
import { freePort } from '../helpers/free-port.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { startPrivateBroker, type PrivateBroker } from '../helpers/private-broker.js';
import { ADMIN_TOKEN } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import type { CoreView, Deployment } from './invariants.js';

export interface Company {
  companyId: number;
  channelId: number;
  /** The channel's `x-bot-api-secret-token`: what the provider sends with every callback. */
  secretToken: string;
  webhookSecret: string;
}

export interface ClusterSettings {
  companies: number;
  /** GATEWAY_KAFKA_SESSION_TIMEOUT and GATEWAY_KAFKA_HEARTBEAT_INTERVAL of every process. */
  sessionTimeout: string;
  heartbeatInterval: string;
}

export class FaultCluster implements Deployment {
  readonly workers: (GatewayProcess | null)[] = [null, null];
  core!: GatewayProcess;
  store!: Store;
  companies: Company[] = [];
  /** Events emitted while the companies were set up, before each had its endpoint: they have no delivery. */
  setupEvents = 0;

  private constructor(
    readonly broker: PrivateBroker,
    readonly receiver: Receiver,
    private readonly dataDir: string,
    private readonly port: number,
    private readonly apiToken: string,
    private readonly settings: ClusterSettings,
  ) {}

  static async start(settings: ClusterSettings): Promise<FaultCluster> {
    const broker = await startPrivateBroker('gateway-faults-kafka');
    const secrets: string[] = [];
    const receiver = await startReceiver(() => secrets);
    const cluster = new FaultCluster(
      broker,
      receiver,
      fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-faults-')),
      await freePort(),
      `gwk_${randomBytes(16).toString('hex')}`,
      settings,
    );
    await cluster.startCore();
    cluster.store = Store.open(path.join(cluster.dataDir, 'gateway.db'));
    for (let i = 0; i < settings.companies; i += 1) cluster.companies.push(await cluster.setupCompany(i));
    secrets.push(...cluster.companies.map((c) => c.webhookSecret));
    cluster.setupEvents = emittedEvents(cluster.store).length;
    await cluster.startWorker(0);
    await cluster.startWorker(1);
    return cluster;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Callbacks enter at the core. */
  get entryUrls(): string[] {
    return [this.baseUrl];
  }

  private env(): Record<string, string> {
    return {
      GATEWAY_KAFKA_BROKERS: this.broker.brokers,
      GATEWAY_KAFKA_SESSION_TIMEOUT: this.settings.sessionTimeout,
      GATEWAY_KAFKA_HEARTBEAT_INTERVAL: this.settings.heartbeatInterval,
      GATEWAY_DATA_DIR: this.dataDir,
      GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0,1s,2s,5s,10s',
      GATEWAY_LOG_LEVEL: 'info',
    };
  }

  /** Starts the core on the cluster's port and store (again after a crash: same data, same port). */
  async startCore(): Promise<void> {
    this.core = await startGatewayProcess('core', {
      ...this.env(),
      GATEWAY_PORT: String(this.port),
      GATEWAY_BOOTSTRAP_TOKEN: this.apiToken,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    });
  }

  /** Starts worker `i` and waits until it took part in the dispatcher's group on gateway.events. */
  async startWorker(i: number): Promise<void> {
    const worker = await startGatewayProcess('worker', { ...this.env(), GATEWAY_WORKER_PORT: '0' });
    await worker.waitFor('"stream":"gateway.events","group":"gateway-dispatcher"', 60_000);
    this.workers[i] = worker;
  }

  coreViews(): CoreView[] {
    return [{ store: this.store, setupEvents: this.setupEvents, baseUrl: this.baseUrl }];
  }

  /** The `kafka_clients` of each live process's /healthz, the core's first. */
  async kafkaClients(): Promise<{ role: string; recovering: unknown[]; recreated: Record<string, number> }[]> {
    const live = this.processes().filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    return Promise.all(
      live.map(async (p) => {
        const health = (await (await fetch(`http://127.0.0.1:${p.port}/healthz`)).json()) as {
          kafka_clients: { recovering: unknown[]; recreated: Record<string, number> };
        };
        return { role: p.role, ...health.kafka_clients };
      }),
    );
  }

  /** Every process this cluster runs now. */
  processes(): GatewayProcess[] {
    return [this.core, ...this.workers].filter((p): p is GatewayProcess => p !== null);
  }

  /** The output of every process of the cluster, for a failure's message. */
  outputs(): string {
    return this.processes()
      .map((p) => `----- ${p.role} (pid ${p.child.pid}) -----\n${p.output().slice(-3_000)}`)
      .join('\n');
  }

  async close(): Promise<void> {
    await Promise.all(this.processes().map((p) => p.stop()));
    this.store?.close();
    await this.receiver.close();
    await this.broker.remove();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
  private setupCompany(i: number): Promise<Company> {
    return setupCompany(this.baseUrl, this.apiToken, this.receiver.url, i);
  }
}

/** A company, its bot-style channel and a webhook endpoint at the receiver, through the v1, admin and v2 APIs at `baseUrl`. */
export async function setupCompany(
  baseUrl: string,
  apiToken: string,
  receiverUrl: string,
  i: number,
): Promise<Company> {
  const call = async (method: string, urlPath: string, body?: unknown, admin = false): Promise<any> => {
    const headers: Record<string, string> = admin
      ? { authorization: `Bearer ${ADMIN_TOKEN}` }
      : { 'x-private-api-token': apiToken };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${urlPath}: ${response.status} ${text}`);
    return JSON.parse(text);
  };
  const company = await call('POST', '/p1/companies', { name: `Fault Co ${i}` });
  const companyId = company.data.external_id as number;
  const channel = await call('POST', `/p1/companies/${companyId}/channels`, {
    provider: 'chat_b',
    token: `123456:fault-bot-${i}`,
  });
  const channelId = channel.data.external_id as number;
  const info = await call('GET', `/admin/channels/${channelId}/callback`, undefined, true);
  const webhook = await call('POST', `/api/p2/companies/${companyId}/webhooks`, { url: receiverUrl, active: true });
  return {
    companyId,
    channelId,
    secretToken: info.secrets.secret_token as string,
    webhookSecret: webhook.webhook.secret as string,
  };
}
