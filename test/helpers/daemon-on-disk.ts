// A `gateway serve` process (the built bin/gateway.js, embedded mode) on a data dir that outlives
// it: a test SIGKILLs it and starts it again on the same store, and reaches it only over HTTP, as
// providers, clients and operators do (its API, its admin API, its callback routes).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_TOKEN } from './gateway.js';
import { startGatewayProcess, type GatewayProcess } from './gateway-process.js';

export interface HttpAnswer {
  status: number;
  body: any;
}

/** A company with a cloud-style (`chat_a_business`) channel, and the app secret its callbacks are signed with. */
export interface CloudChannel {
  companyId: number;
  channelId: number;
  appSecret: string;
}

export class DaemonOnDisk {
  private current: GatewayProcess | null = null;

  private constructor(
    readonly dataDir: string,
    private readonly env: Record<string, string>,
    private readonly apiToken: string,
  ) {}

  /** Starts the daemon on a fresh data dir, admin API on, webhooks allowed to loopback receivers; `env` adds to that. */
  static async start(env: Record<string, string> = {}): Promise<DaemonOnDisk> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-on-disk-'));
    const apiToken = `gwk_${randomBytes(16).toString('hex')}`;
    const daemon = new DaemonOnDisk(
      dataDir,
      {
        GATEWAY_PORT: '0',
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_BOOTSTRAP_TOKEN: apiToken,
        GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
        GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
        GATEWAY_LOG_LEVEL: 'info',
        ...env,
      },
      apiToken,
    );
    await daemon.restart();
    return daemon;
  }

  /** `http://127.0.0.1:<port>` of the running process; null while none runs (killed, not yet started again). */
  get baseUrl(): string | null {
    return this.current === null ? null : `http://127.0.0.1:${this.current.port}`;
  }

  /** The output of the running process, for a failure's message. */
  output(): string {
    return this.current?.output() ?? '';
  }

  /** Starts a process on the data dir (after `kill`); it listens on a new port. */
  async restart(): Promise<void> {
    if (this.current !== null) throw new Error('the daemon is running');
    this.current = await startGatewayProcess('all', this.env);
  }

  /** SIGKILL; `baseUrl` is null from the moment the signal is sent. */
  async kill(): Promise<void> {
    const killed = this.current;
    this.current = null;
    await killed?.kill();
  }

  /** Stops the process (SIGTERM) and deletes the data dir. */
  async close(): Promise<void> {
    const running = this.current;
    this.current = null;
    await running?.stop();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** A request with the bootstrap account's API token; a GET sends `query` in the query string, others as JSON. */
  api(method: string, urlPath: string, input?: Record<string, unknown>): Promise<HttpAnswer> {
    return this.call(method, urlPath, { 'x-private-api-token': this.apiToken }, input);
  }

  /** A request to the admin API with ADMIN_TOKEN. */
  admin(method: string, urlPath: string, input?: Record<string, unknown>): Promise<HttpAnswer> {
    return this.call(method, urlPath, { authorization: `Bearer ${ADMIN_TOKEN}` }, input);
  }

  /** A company and its cloud-style channel, through the v1 API; the app secret from the admin API. */
  async createCloudChannel(name: string): Promise<CloudChannel> {
    const companyId = expectOk(await this.api('POST', '/p1/companies', { name })).data.external_id as number;
    const channel = await this.api('POST', `/p1/companies/${companyId}/channels`, {
      provider: 'chat_a_business',
      hosting_type: 'cloud',
      token: 'EAAG-cloud-token',
    });
    const channelId = expectOk(channel).data.external_id as number;
    const info = expectOk(await this.admin('GET', `/admin/channels/${channelId}/callback`));
    return { companyId, channelId, appSecret: info.secrets.app_secret as string };
  }

  /** An active webhook endpoint of the company (v2 API): its id (the admin API's endpoint_id) and signing secret. */
  async createWebhook(companyId: number, settings: Record<string, unknown>): Promise<{ id: number; secret: string }> {
    const created = expectOk(
      await this.api('POST', `/api/p2/companies/${companyId}/webhooks`, { active: true, ...settings }),
    );
    return { id: created.webhook.id as number, secret: created.webhook.secret as string };
  }

  /** Every message of the company, through the v2 API: each conversation, each page. */
  async allMessages(companyId: number): Promise<Record<string, unknown>[]> {
    const conversations = await this.allPages('/api/p2/conversations', 'conversations', companyId, 100);
    const messages: Record<string, unknown>[] = [];
    for (const conversation of conversations)
      messages.push(
        ...(await this.allPages(
          `/api/p2/conversations/${String(conversation.id)}/messages`,
          'messages',
          companyId,
          500,
        )),
      );
    return messages;
  }

  /** Every delivery the admin API lists for the filter (newest first), page by page. */
  async deliveries(filter: Record<string, string | number>): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const page = expectOk(
        await this.admin('GET', '/admin/deliveries', { ...filter, limit: 200, ...(cursor === null ? {} : { cursor }) }),
      );
      rows.push(...(page.deliveries as Record<string, unknown>[]));
      cursor = page.next_cursor as string | null;
    } while (cursor !== null);
    return rows;
  }

  private async allPages(
    urlPath: string,
    key: string,
    companyId: number,
    perPage: number,
  ): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    for (let page = 1; ; page += 1) {
      const answer = expectOk(await this.api('GET', urlPath, { company_id: companyId, page, per_page: perPage }));
      const items = answer[key] as Record<string, unknown>[];
      rows.push(...items);
      if (items.length < perPage) return rows;
    }
  }

  private async call(
    method: string,
    urlPath: string,
    headers: Record<string, string>,
    input: Record<string, unknown> | undefined,
  ): Promise<HttpAnswer> {
    const base = this.baseUrl;
    if (base === null) throw new Error(`${method} ${urlPath}: the daemon is not running`);
    let url = `${base}${urlPath}`;
    let body: string | undefined;
    if (method === 'GET' && input !== undefined)
      url += `?${new URLSearchParams(Object.entries(input).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
    else if (input !== undefined) {
      headers = { ...headers, 'content-type': 'application/json' };
      body = JSON.stringify(input);
    }
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  }
}

/** The body of a 2xx answer; anything else throws with the status and body. */
export function expectOk(answer: HttpAnswer): any {
  if (answer.status < 200 || answer.status >= 300)
    throw new Error(`expected a 2xx answer, got ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}
