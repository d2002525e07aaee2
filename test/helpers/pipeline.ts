import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { appendEvent, newEventId } from '../../src/domain/events.js';
import type { EventRecord } from '../../src/streams/catalog.js';
import { startGateway, type RunningGateway } from '../../src/roles/server.js';
import type { Store } from '../../src/store/store.js';
import type { Clock } from '../../src/streams/stream.js';
import { memoryLogger } from './wait.js';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

export interface PipelineGateway {
  gateway: RunningGateway;
  store: Store;
  baseUrl: string;
  /** API token of the bootstrap account (account 1). */
  apiToken: string;
  logText(): string;
  admin(method: string, path: string, body?: unknown, token?: string | null): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** A real gateway (SQLite file in a temp dir, pipeline running) on a clock the test controls. */
export async function startPipelineGateway(clock: Clock, env: Record<string, string> = {}, role: 'all' | 'core' = 'all'): Promise<PipelineGateway> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-pipeline-'));
  const apiToken = `gwk_${randomBytes(16).toString('hex')}`;
  const config = loadConfig({
    GATEWAY_PORT: '0',
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_BOOTSTRAP_TOKEN: apiToken,
    GATEWAY_WEBHOOK_ALLOW_HOSTS: '127.0.0.1,localhost',
    GATEWAY_WEBHOOK_TIMEOUT: '10s',
    GATEWAY_API_RATE_LIMIT_FACTOR: '1000',
    ...env,
  });
  const { logger, text } = memoryLogger('info');
  const gateway = await startGateway(config, logger, { clock, role });
  const baseUrl = `http://127.0.0.1:${gateway.port}`;
  return {
    gateway,
    store: gateway.store,
    baseUrl,
    apiToken,
    logText: text,
    async admin(method, urlPath, body, token = ADMIN_TOKEN) {
      const headers: Record<string, string> = {};
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${baseUrl}${urlPath}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const textBody = await response.text();
      return { status: response.status, body: textBody === '' ? undefined : JSON.parse(textBody) };
    },
    async close() {
      await gateway.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export function insertCompany(store: Store, name = 'Acme'): number {
  return store.companies.insert({ accountId: 1, name, phone: null, description: null, webhookUrl: null }).id;
}

/** Webhook endpoints are managed by the v2 API; tests of the pipeline insert them directly. */
export function insertEndpoint(
  store: Store,
  companyId: number,
  url: string,
  options: { secret?: string; previousSecret?: string; previousExpiresAt?: number; eventTypes?: string[] } = {},
): { id: number; secret: string } {
  const secret = options.secret ?? newSecret();
  const now = Date.now();
  const row = store.db
    .prepare(
      `INSERT INTO webhook_endpoints (company_id, source, url, secret, previous_secret, previous_secret_expires_at, event_types, created_at, updated_at)
       VALUES (?, 'api', ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    )
    .get(companyId, url, secret, options.previousSecret ?? null, options.previousExpiresAt ?? null, options.eventTypes ? JSON.stringify(options.eventTypes) : null, now, now) as {
    id: number;
  };
  return { id: row.id, secret };
}

export function emitEvent(store: Store, companyId: number, name = 'message.create', object: Record<string, unknown> = { id: 1, text: 'hi' }): EventRecord {
  const id = newEventId();
  const [type, event] = name.split('.');
  const createdAt = new Date().toISOString();
  return store.transaction(() =>
    appendEvent(store.outbox, { id, company_id: companyId, name, created_at: createdAt, body: { id, event, type, created_at: createdAt, object } }),
  );
}
