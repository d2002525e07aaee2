import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/config.js';
import { digestApiToken, generateApiToken } from '../../src/domain/tokens.js';
import { createLogger } from '../../src/log.js';
import { startGateway, type RunningGateway } from '../../src/roles/server.js';
import type { Store } from '../../src/store/store.js';
import type { Clock } from '../../src/streams/stream.js';
import { inject } from 'vitest';
import { checkEmittedEvents } from './events.js';

/** The admin token of the tests' gateways (GATEWAY_ADMIN_TOKEN: the admin API is off without one). */
export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

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

export interface TestGateway {
  baseUrl: string;
  gateway: RunningGateway;
  store: Store;
  /** API token of the bootstrap account (account 1). */
  token: string;
  dataDir: string;
  /** Every log line the daemon wrote, as text (to prove secrets never reach it). */
  logText(): string;
  /** Creates another account and answers its token. */
  createAccount(name?: string): string;
  /** fetch against the gateway with the given API token in the X-Private-Api-Token header (null: none). */
  request(method: string, pathAndQuery: string, options?: RequestOptions): Promise<TestResponse>;
  /** fetch against the admin API with a bearer token, ADMIN_TOKEN unless given (null: none). */
  admin(method: string, path: string, body?: unknown, token?: string | null): Promise<{ status: number; body: any }>;
  /** Closes the gateway, then fails if an event it emitted does not match its schema (test/helpers/events.ts). */
  close(): Promise<void>;
}

export interface RequestOptions {
  token?: string | null;
  /** A plain object is sent as JSON; a string or URLSearchParams as given. */
  json?: unknown;
  form?: string | URLSearchParams;
  body?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;

  body: any;
}

/**
 * A real gateway in the test process (real Koa app, real SQLite file in a fresh temp dir, the
 * pipeline running) on a free loopback port.
 */
export async function startTestGateway(
  env: Record<string, string> = {},
  options: TestGatewayOptions = {},
): Promise<TestGateway> {
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
    baseUrl,
    gateway,
    store: gateway.store,
    token,
    dataDir,
    logText: () => lines.join(''),
    createAccount(name = 'other') {
      const other = generateApiToken();
      gateway.store.transaction(() => gateway.store.accounts.createWithToken(name, digestApiToken(other)));
      return other;
    },
    async request(method, pathAndQuery, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const sendToken = options.token === undefined ? token : options.token;
      if (sendToken !== null) headers['x-private-api-token'] = sendToken;
      let body: string | undefined = options.body;
      if (options.json !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = typeof options.json === 'string' ? options.json : JSON.stringify(options.json);
      } else if (options.form !== undefined) {
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
        body = String(options.form);
      }
      return send(`${baseUrl}${pathAndQuery}`, method, headers, body);
    },
    async admin(method, urlPath, body, adminToken = ADMIN_TOKEN) {
      const headers: Record<string, string> = {};
      if (adminToken !== null) headers.authorization = `Bearer ${adminToken}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${baseUrl}${urlPath}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const textBody = await response.text();
      return { status: response.status, body: textBody === '' ? undefined : JSON.parse(textBody) };
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

/** node:http rather than fetch: fetch refuses a body on GET, which the contract's samples send. */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<TestResponse> {
  if (body !== undefined) headers['content-length'] ??= String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body: parsed });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
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
