import path from 'node:path';
import { readApiLimits, type ApiLimitsConfig } from './api-limits.js';
import { readTracingConfig, type TracingConfig } from './tracing.js';
import { readOperatorWebhookConfig, type OperatorWebhookConfig } from './operator-webhook.js';
import { readKafkaSettings, type KafkaSettings } from './kafka.js';
import { readClusterSettings, type ClusterSettings } from './cluster.js';
import { readFrontSettings, type FrontSettings } from './front.js';
import { readHttpLimits, type HttpLimits } from './http-limits.js';
import { readWebhookConfig, type WebhookConfig } from './webhooks.js';
import { readProviderConfig, type ProviderConfig } from './providers.js';
import {
  BASE_URL_PATTERN,
  MIN_TOKEN_LENGTH,
  isTokenShaped,
  parseDuration,
  parseInteger,
  splitList,
  type ReadSetting,
} from './settings.js';

export type {
  ApiLimitsConfig,
  ClusterSettings,
  HttpLimits,
  KafkaSettings,
  OperatorWebhookConfig,
  ProviderConfig,
  TracingConfig,
  WebhookConfig,
};

/** Every setting of the daemon, read from the environment. Defaults per docs/design.md section 9. */
export interface Config extends KafkaSettings, HttpLimits, ClusterSettings, FrontSettings {
  /** GATEWAY_PORT: TCP port of the HTTP server (0 picks a free one). Default 3000. */
  port: number;
  /**
   * GATEWAY_WORKER_PORT: port of the HTTP server of a `--role worker` process, which answers only
   * /healthz and /metrics (0 picks a free one). Unset: a worker has no HTTP server.
   */
  workerPort: number | null;
  /** GATEWAY_HOST: address to listen on. Default 127.0.0.1; the container sets 0.0.0.0. */
  host: string;
  /** GATEWAY_DATA_DIR: folder holding the SQLite store and uploaded files. Default ./data. */
  dataDir: string;
  /** GATEWAY_ADMIN_TOKEN: bearer token of the /admin API; unset turns the admin API off. */
  adminToken: string | null;
  /**
   * GATEWAY_METRICS_TOKEN: bearer token of GET /metrics. Unset: /metrics takes the admin token
   * when GATEWAY_ADMIN_TOKEN is set, and is open (like /healthz) when neither is.
   */
  metricsToken: string | null;
  /** GATEWAY_BOOTSTRAP_TOKEN: API token of the first account, created when the store has none. */
  bootstrapToken: string | null;
  /** GATEWAY_WEBHOOK_ALLOW_HOSTS: comma-separated hosts or IPs exempt from the private-range guard. */
  webhookAllowHosts: string[];
  /** GATEWAY_LOG_LEVEL: pino level (fatal, error, warn, info, debug, trace, silent). Default info. */
  logLevel: LogLevel;
  /** GATEWAY_BODY_LIMIT_BYTES: largest accepted request body. Default 1 MiB. */
  bodyLimitBytes: number;
  /**
   * GATEWAY_PUBLIC_URL: the address clients and providers reach the gateway at, used to build
   * attachment URLs and callback addresses. Default http://<host>:<port> (127.0.0.1 for 0.0.0.0).
   */
  publicUrl: string;
  /**
   * The origin (scheme, host, port) of GATEWAY_PUBLIC_URL when it is set: the only origin the
   * console's and the portal's session openings accept. Null when unset (then the request's Host).
   */
  publicOrigin: string | null;
  /**
   * GATEWAY_TRUST_PROXY: how many reverse proxies in front of the daemon to trust for the client's
   * address (X-Forwarded-For, that many hops from the right) and scheme and host (X-Forwarded-Proto,
   * X-Forwarded-Host). 0 (default): the connection's own address; a proxy's headers are ignored.
   */
  trustProxy: number;
  /**
   * GATEWAY_ATTACHMENT_MAX_BYTES: largest accepted uploaded file (one per request); larger ones
   * answer 413 and nothing is kept. Default 16 MiB.
   */
  attachmentMaxBytes: number;
  /**
   * GATEWAY_CHAT_A_BUSINESS_APP_SECRET: the app secret of the operator's cloud-style business app
   * (`chat_a_business`), the key of `X-Hub-Signature-256` on every such channel's callbacks. Unset
   * means each channel verifies with its own generated secret (GET /admin/channels/<id>/callback).
   * At least 16 characters without spaces; never logged.
   */
  cloudAppSecret: string | null;
  /**
   * GATEWAY_STORE_CHECKPOINT_INTERVAL: how often a thread of its own copies the store's WAL into
   * the database file (src/store/engine/checkpointer.ts); 0 leaves it to SQLite, on the commit that
   * crossed 1000 pages, on the event loop. Default 100ms.
   */
  storeCheckpointMs: number;
  /**
   * GATEWAY_MESSAGE_RETENTION: how long messages (with their attachments) are kept, for the
   * companies without a period of their own (PUT /api/p2/companies/<id>/settings); at least 1d.
   * Unset or `none`: kept until deleted.
   */
  messageRetentionMs: number | null;
  webhooks: WebhookConfig;
  /** GATEWAY_OPERATOR_WEBHOOK_URL and _SECRET (src/config/operator-webhook.ts); null when unset. */
  operatorWebhook: OperatorWebhookConfig | null;
  providers: ProviderConfig;
  /** The REST API's rate limits and the limits of attachments fetched by URL (src/config/api-limits.ts). */
  apiLimits: ApiLimitsConfig;
  /** OpenTelemetry traces (OTEL_* variables, src/config/tracing.ts): off without an OTLP endpoint. */
  tracing: TracingConfig;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads and validates the whole configuration at once, so that a bad start names every bad key
 * rather than the first one found.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const read: ReadSetting = (key) => {
    const value = env[key];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const port = parseInteger(read('GATEWAY_PORT'), 3000);
  if (port === null || port < 0 || port > 65535) {
    problems.push(`GATEWAY_PORT must be an integer from 0 to 65535 (got "${env.GATEWAY_PORT}")`);
  }

  const workerPortText = read('GATEWAY_WORKER_PORT');
  const workerPort = workerPortText === undefined ? null : parseInteger(workerPortText, 0);
  if (workerPortText !== undefined && (workerPort === null || workerPort > 65535)) {
    problems.push(`GATEWAY_WORKER_PORT must be an integer from 0 to 65535 (got "${workerPortText}")`);
  }

  const host = read('GATEWAY_HOST') ?? '127.0.0.1';
  if (/\s/.test(host)) problems.push(`GATEWAY_HOST must be a host name or IP address (got "${host}")`);

  const dataDir = path.resolve(read('GATEWAY_DATA_DIR') ?? './data');
  const kafka = readKafkaSettings(read, problems);
  const cluster = readClusterSettings(read, problems);
  const front = readFrontSettings(read, problems);

  const token = (key: string): string | null => {
    const value = read(key) ?? null;
    if (value !== null && !isTokenShaped(value))
      problems.push(`${key} must be at least ${MIN_TOKEN_LENGTH} characters without spaces`);
    return value;
  };
  const adminToken = token('GATEWAY_ADMIN_TOKEN');
  const metricsToken = token('GATEWAY_METRICS_TOKEN');
  const bootstrapToken = token('GATEWAY_BOOTSTRAP_TOKEN');

  const webhookAllowHosts = splitList(read('GATEWAY_WEBHOOK_ALLOW_HOSTS') ?? '').map((h) => h.toLowerCase());

  const logLevel = (read('GATEWAY_LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`GATEWAY_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.GATEWAY_LOG_LEVEL}")`);
  }

  const bodyLimitBytes = parseInteger(read('GATEWAY_BODY_LIMIT_BYTES'), 1024 * 1024);
  if (bodyLimitBytes === null || bodyLimitBytes < 1024) {
    problems.push(
      `GATEWAY_BODY_LIMIT_BYTES must be an integer of at least 1024 (got "${env.GATEWAY_BODY_LIMIT_BYTES}")`,
    );
  }

  const publicUrlText = read('GATEWAY_PUBLIC_URL');
  const publicUrl =
    publicUrlText ?? `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port ?? 3000}`;
  if (publicUrlText !== undefined && !BASE_URL_PATTERN.test(publicUrlText)) {
    problems.push(`GATEWAY_PUBLIC_URL must be an absolute http(s) URL without query (got "${publicUrlText}")`);
  }

  const trustProxy = parseInteger(read('GATEWAY_TRUST_PROXY'), 0);
  if (trustProxy === null || trustProxy > 10) {
    problems.push(
      `GATEWAY_TRUST_PROXY must be the number of proxies in front of the gateway, 0 to 10 (got "${env.GATEWAY_TRUST_PROXY}")`,
    );
  }

  const attachmentMaxBytes = parseInteger(read('GATEWAY_ATTACHMENT_MAX_BYTES'), 16 * 1024 * 1024);
  if (attachmentMaxBytes === null || attachmentMaxBytes < 1024) {
    problems.push(
      `GATEWAY_ATTACHMENT_MAX_BYTES must be an integer of at least 1024 (got "${env.GATEWAY_ATTACHMENT_MAX_BYTES}")`,
    );
  }

  const limits = readHttpLimits(read, problems);

  const cloudAppSecret = token('GATEWAY_CHAT_A_BUSINESS_APP_SECRET');

  const checkpointText = read('GATEWAY_STORE_CHECKPOINT_INTERVAL');
  const storeCheckpointMs = checkpointText === undefined ? 100 : parseDuration(checkpointText);
  if (storeCheckpointMs === null || storeCheckpointMs > 60_000) {
    problems.push(
      `GATEWAY_STORE_CHECKPOINT_INTERVAL must be a duration up to 60s, such as 100ms or 1s, or 0 (got "${checkpointText}")`,
    );
  }

  const retentionText = read('GATEWAY_MESSAGE_RETENTION');
  const messageRetentionMs =
    retentionText === undefined || retentionText === 'none' ? null : parseDuration(retentionText);
  if (retentionText !== undefined && retentionText !== 'none' && (messageRetentionMs ?? 0) < 86_400_000) {
    problems.push(
      `GATEWAY_MESSAGE_RETENTION must be a duration of at least 1d, such as 90d, or none (got "${retentionText}")`,
    );
  }

  const webhooks = readWebhookConfig(read, problems);
  const operatorWebhook = readOperatorWebhookConfig(read, problems);
  const providers = readProviderConfig(read, problems);
  const tracing = readTracingConfig(read, problems);
  const apiLimits = readApiLimits(read, problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: port!,
    workerPort,
    host,
    dataDir,
    ...kafka,
    ...cluster,
    ...front,
    adminToken,
    metricsToken,
    bootstrapToken,
    webhookAllowHosts,
    logLevel: logLevel as LogLevel,
    bodyLimitBytes: bodyLimitBytes!,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    publicOrigin: publicUrlText === undefined ? null : new URL(publicUrlText).origin,
    trustProxy: trustProxy ?? 0,
    attachmentMaxBytes: attachmentMaxBytes!,
    ...limits,
    cloudAppSecret,
    storeCheckpointMs: storeCheckpointMs ?? 100,
    messageRetentionMs,
    webhooks,
    operatorWebhook,
    providers,
    apiLimits,
    tracing,
  };
}

/** Path of the SQLite store inside the data dir. */
export function storePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'gateway.db');
}
