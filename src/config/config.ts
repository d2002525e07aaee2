import path from 'node:path';
import { readApiLimits, type ApiLimitsConfig } from './api-limits.js';
import { readTracingConfig, type TracingConfig } from './tracing.js';
import { readOperatorWebhookConfig, type OperatorWebhookConfig } from './operator-webhook.js';

export type { ApiLimitsConfig, OperatorWebhookConfig, TracingConfig };

/** Every setting of the daemon, read from the environment. Defaults per docs/design.md section 9. */
export interface Config {
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
  /** GATEWAY_KAFKA_BROKERS: comma-separated host:port list; unset means embedded streams in SQLite. */
  kafkaBrokers: string[] | null;
  /**
   * GATEWAY_KAFKA_NAMESPACE: prefix of every topic and consumer group (several installs on one
   * cluster). Default empty.
   */
  kafkaNamespace: string;
  /**
   * GATEWAY_KAFKA_SESSION_TIMEOUT: a consumer the group has not heard from for this long (a process
   * killed or frozen) is dropped, and its partitions go to the live members. 6s to 30m, the limits
   * a Kafka broker accepts by default. Default 10s.
   */
  kafkaSessionTimeoutMs: number;
  /** GATEWAY_KAFKA_HEARTBEAT_INTERVAL: how often consumers heartbeat, at most a third of the session timeout. Default 1s. */
  kafkaHeartbeatIntervalMs: number;
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
   * GATEWAY_ATTACHMENT_MAX_BYTES: largest accepted uploaded file (one per request); larger ones
   * answer 413 and nothing is kept. Default 16 MiB.
   */
  attachmentMaxBytes: number;
  /** GATEWAY_UPLOAD_CONCURRENCY: uploads received at once; one more answers 503 with Retry-After. Default 8. */
  uploadConcurrency: number;
  /**
   * GATEWAY_HEADERS_TIMEOUT: time a client has to send the request line and headers (Node's
   * server.headersTimeout); a slower one gets 408 and its connection is closed. Default 20s.
   */
  headersTimeoutMs: number;
  /**
   * GATEWAY_REQUEST_TIMEOUT: time a client has to send a whole request, body included (Node's
   * server.requestTimeout); at least GATEWAY_HEADERS_TIMEOUT. Default 2m (a 16 MiB upload at 1 Mbit/s).
   */
  requestTimeoutMs: number;
  /** GATEWAY_JSON_MAX_DEPTH: deepest nesting of objects and arrays in a JSON body or callback; deeper is a 400. Default 32. */
  jsonMaxDepth: number;
  /** GATEWAY_QUERY_MAX_BYTES: longest query string (after `?`, as sent); longer is a 414. Default 8192. */
  queryMaxBytes: number;
  /**
   * GATEWAY_CHAT_A_BUSINESS_APP_SECRET: the app secret of the operator's cloud-style business app
   * (`chat_a_business`), the key of `X-Hub-Signature-256` on every such channel's callbacks. Unset
   * means each channel verifies with its own generated secret (GET /admin/channels/<id>/callback).
   * At least 16 characters without spaces; never logged.
   */
  cloudAppSecret: string | null;
  /**
   * GATEWAY_STORE_CHECKPOINT_INTERVAL: how often a thread of its own copies the store's WAL into
   * the database file (src/store/checkpointer.ts); 0 leaves it to SQLite, on the commit that
   * crossed 1000 pages, on the event loop. Default 100ms.
   */
  storeCheckpointMs: number;
  webhooks: WebhookConfig;
  /** GATEWAY_OPERATOR_WEBHOOK_URL and _SECRET (src/config/operator-webhook.ts); null when unset. */
  operatorWebhook: OperatorWebhookConfig | null;
  providers: ProviderConfig;
  /** The REST API's rate limits and the limits of attachments fetched by URL (src/config/api-limits.ts). */
  apiLimits: ApiLimitsConfig;
  /** OpenTelemetry traces (OTEL_* variables, src/config/tracing.ts): off without an OTLP endpoint. */
  tracing: TracingConfig;
}

/** Where and how the gateway calls providers (docs/design.md section 8, docs/connector-protocol.md). */
export interface ProviderConfig {
  /**
   * GATEWAY_CHAT_A_BUSINESS_API_URL: base of the cloud-style business API, version included
   * (`https://graph.example.com/v21.0`). Unset: `chat_a_business` sends fail as not configured.
   */
  cloudApiUrl: string | null;
  /**
   * GATEWAY_CHAT_A_BUSINESS_TOKEN: the operator's system-user token, used for `chat_a_business`
   * channels created by vendor_channel_id without a token of their own. Never logged.
   */
  cloudSystemToken: string | null;
  /** GATEWAY_CHAT_B_API_URL: base of the bot-style API (`https://api.bot.example`). Unset: not configured. */
  botApiUrl: string | null;
  /** GATEWAY_CONNECTOR_URL: base of our connector protocol's outbound half. Unset: not configured. */
  connectorUrl: string | null;
  /** GATEWAY_CONNECTOR_TOKEN: bearer token the gateway presents to the connector. Never logged. */
  connectorToken: string | null;
  /** GATEWAY_PROVIDER_TIMEOUT: time one provider call may take. Default 15s. */
  timeoutMs: number;
  /**
   * GATEWAY_PROVIDER_RETRY_SCHEDULE: delays before each new try of a send that failed transiently
   * (5xx, 429, network). Its length is the number of retries; after the last the message is `error`.
   * At most 4m in all (the tries wait inside the job's handler, under its stream lease). Default 1s,5s,30s,2m.
   */
  retryScheduleMs: number[];
  /** GATEWAY_PROVIDER_CHANNEL_CONCURRENCY: provider calls at once per channel and process. Default 4. */
  channelConcurrency: number;
  /** GATEWAY_PROVIDER_CHANNEL_RATE: provider calls per second per channel and process (fractions allowed). Default 20. */
  channelRatePerSecond: number;
  /** GATEWAY_SANDBOX: true replaces every provider by the built-in sandbox connector. Default false. */
  sandbox: boolean;
  /** GATEWAY_SANDBOX_STEP: the sandbox's pause between sent, delivered and read (and before "scanning" a QR). Default 1s. */
  sandboxStepMs: number;
}

/** GATEWAY_WEBHOOK_RETENTION's default: a month of deliveries to look into and replay. */
export const WEBHOOK_RETENTION_DEFAULT_MS = 30 * 86_400_000;

/** The webhook dispatcher's settings (docs/design.md section 7). */
export interface WebhookConfig {
  /** GATEWAY_WEBHOOK_TIMEOUT: time one attempt may take (a duration: 15s, 500ms). Default 15s. */
  timeoutMs: number;
  /**
   * GATEWAY_WEBHOOK_RETRY_SCHEDULE: comma-separated delays before each attempt, the first one 0
   * (immediately). Default 0,5s,5m,30m,2h,5h,10h,10h: eight attempts.
   */
  retryScheduleMs: number[];
  /** GATEWAY_WEBHOOK_RETRY_JITTER: ±fraction applied to every delay, 0 to 0.5. Default 0.2. */
  retryJitter: number;
  /** GATEWAY_WEBHOOK_RETRY_AFTER_MAX: longest Retry-After (429/503) honoured; longer is cut. Default 1h. */
  retryAfterMaxMs: number;
  /**
   * GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY: attempts of one endpoint handed to the sender at once
   * (queued in order behind each other for the endpoint's events, sent at once for a bulk replay). Default 4.
   */
  endpointConcurrency: number;
  /** GATEWAY_WEBHOOK_DISABLE_AFTER: an endpoint without any success for this long is disabled. Default 5d. */
  disableAfterMs: number;
  /**
   * GATEWAY_WEBHOOK_RETENTION: delivered, failed and held deliveries (with their attempts) are
   * deleted once their last change is this old; pending ones stay. At least 1h. Default 30d.
   */
  retentionMs: number;
  /**
   * GATEWAY_WEBHOOK_THREADS: worker threads that sign and send the attempts, 0 to 16; 0 sends them
   * from the event loop itself. Default 1.
   */
  threads: number;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const MIN_TOKEN_LENGTH = 16;

/**
 * Reads and validates the whole configuration at once, so that a bad start names every bad key
 * rather than the first one found.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const read = (key: string): string | undefined => {
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

  const brokersText = read('GATEWAY_KAFKA_BROKERS');
  const kafkaBrokers = brokersText === undefined ? null : splitList(brokersText);
  if (kafkaBrokers !== null) {
    const bad = kafkaBrokers.filter((b) => !/^[A-Za-z0-9.\-_[\]:]+:\d{1,5}$/.test(b));
    if (kafkaBrokers.length === 0 || bad.length > 0) {
      problems.push(`GATEWAY_KAFKA_BROKERS must be a comma-separated list of host:port (bad: ${bad.join(', ') || 'empty'})`);
    }
  }

  const kafkaNamespace = read('GATEWAY_KAFKA_NAMESPACE') ?? '';
  if (!/^[A-Za-z0-9._-]{0,100}$/.test(kafkaNamespace)) {
    problems.push(`GATEWAY_KAFKA_NAMESPACE may hold only letters, digits, '.', '_' and '-' (got "${kafkaNamespace}")`);
  }

  const { kafkaSessionTimeoutMs, kafkaHeartbeatIntervalMs } = readKafkaTimings(read, problems);

  const adminToken = read('GATEWAY_ADMIN_TOKEN') ?? null;
  if (adminToken !== null && !isTokenShaped(adminToken)) {
    problems.push(`GATEWAY_ADMIN_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters without spaces`);
  }
  const metricsToken = read('GATEWAY_METRICS_TOKEN') ?? null;
  if (metricsToken !== null && !isTokenShaped(metricsToken)) {
    problems.push(`GATEWAY_METRICS_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters without spaces`);
  }
  const bootstrapToken = read('GATEWAY_BOOTSTRAP_TOKEN') ?? null;
  if (bootstrapToken !== null && !isTokenShaped(bootstrapToken)) {
    problems.push(`GATEWAY_BOOTSTRAP_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters without spaces`);
  }

  const webhookAllowHosts = splitList(read('GATEWAY_WEBHOOK_ALLOW_HOSTS') ?? '').map((h) => h.toLowerCase());

  const logLevel = (read('GATEWAY_LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`GATEWAY_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.GATEWAY_LOG_LEVEL}")`);
  }

  const bodyLimitBytes = parseInteger(read('GATEWAY_BODY_LIMIT_BYTES'), 1024 * 1024);
  if (bodyLimitBytes === null || bodyLimitBytes < 1024) {
    problems.push(`GATEWAY_BODY_LIMIT_BYTES must be an integer of at least 1024 (got "${env.GATEWAY_BODY_LIMIT_BYTES}")`);
  }

  const publicUrlText = read('GATEWAY_PUBLIC_URL');
  const publicUrl = publicUrlText ?? `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port ?? 3000}`;
  if (publicUrlText !== undefined && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(publicUrlText)) {
    problems.push(`GATEWAY_PUBLIC_URL must be an absolute http(s) URL without query (got "${publicUrlText}")`);
  }

  const attachmentMaxBytes = parseInteger(read('GATEWAY_ATTACHMENT_MAX_BYTES'), 16 * 1024 * 1024);
  if (attachmentMaxBytes === null || attachmentMaxBytes < 1024) {
    problems.push(`GATEWAY_ATTACHMENT_MAX_BYTES must be an integer of at least 1024 (got "${env.GATEWAY_ATTACHMENT_MAX_BYTES}")`);
  }

  const limits = readHttpLimits(read, problems);

  const cloudAppSecret = read('GATEWAY_CHAT_A_BUSINESS_APP_SECRET') ?? null;
  if (cloudAppSecret !== null && !isTokenShaped(cloudAppSecret)) {
    problems.push(`GATEWAY_CHAT_A_BUSINESS_APP_SECRET must be at least ${MIN_TOKEN_LENGTH} characters without spaces`);
  }

  const checkpointText = read('GATEWAY_STORE_CHECKPOINT_INTERVAL');
  const storeCheckpointMs = checkpointText === undefined ? 100 : parseDuration(checkpointText);
  if (storeCheckpointMs === null || storeCheckpointMs > 60_000) {
    problems.push(`GATEWAY_STORE_CHECKPOINT_INTERVAL must be a duration up to 60s, such as 100ms or 1s, or 0 (got "${checkpointText}")`);
  }

  const webhooks = readWebhookConfig(read, problems);
  const operatorWebhook = readOperatorWebhookConfig(read, problems);
  const providers = readProviderConfig(read, problems);
  const tracing = readTracingConfig(read, problems);
  const apiLimits = readApiLimits(read, problems, parseDuration);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: port!,
    workerPort,
    host,
    dataDir,
    kafkaBrokers,
    kafkaNamespace,
    kafkaSessionTimeoutMs,
    kafkaHeartbeatIntervalMs,
    adminToken,
    metricsToken,
    bootstrapToken,
    webhookAllowHosts,
    logLevel: logLevel as LogLevel,
    bodyLimitBytes: bodyLimitBytes!,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    attachmentMaxBytes: attachmentMaxBytes!,
    ...limits,
    cloudAppSecret,
    storeCheckpointMs: storeCheckpointMs ?? 100,
    webhooks,
    operatorWebhook,
    providers,
    apiLimits,
    tracing,
  };
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `500ms`, `5s`, `5m`, `2h`, `5d`, or a bare number of milliseconds; null when unreadable. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return null;
  return Math.round(Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms']!);
}

/** The limits that keep slow or hostile clients from holding the server (docs/configuration.md). */
function readHttpLimits(
  read: (key: string) => string | undefined,
  problems: string[],
): Pick<Config, 'uploadConcurrency' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'jsonMaxDepth' | 'queryMaxBytes'> {
  const integer = (key: string, fallback: number, min: number, max: number): number => {
    const value = parseInteger(read(key), fallback);
    if (value === null || value < min || value > max) {
      problems.push(`${key} must be an integer from ${min} to ${max} (got "${read(key)}")`);
      return fallback;
    }
    return value;
  };
  const duration = (key: string, fallback: number, min: number): number => {
    const text = read(key);
    const value = text === undefined ? fallback : parseDuration(text);
    if (value === null || value < min) {
      problems.push(`${key} must be a duration of at least ${min} ms, such as 20s or 2m (got "${text}")`);
      return fallback;
    }
    return value;
  };
  const headersTimeoutMs = duration('GATEWAY_HEADERS_TIMEOUT', 20_000, 1_000);
  const requestTimeoutMs = duration('GATEWAY_REQUEST_TIMEOUT', 120_000, 1_000);
  if (requestTimeoutMs < headersTimeoutMs) {
    problems.push(`GATEWAY_REQUEST_TIMEOUT must be at least GATEWAY_HEADERS_TIMEOUT (got ${requestTimeoutMs} ms and ${headersTimeoutMs} ms)`);
  }
  return {
    uploadConcurrency: integer('GATEWAY_UPLOAD_CONCURRENCY', 8, 1, 1_000),
    headersTimeoutMs,
    requestTimeoutMs,
    jsonMaxDepth: integer('GATEWAY_JSON_MAX_DEPTH', 32, 2, 1_000),
    // Node refuses request heads over 16 KiB (431) before any of this runs.
    queryMaxBytes: integer('GATEWAY_QUERY_MAX_BYTES', 8_192, 256, 16_384),
  };
}

/** The bounds a Kafka broker puts on a consumer's session timeout by default (group.min/max.session.timeout.ms). */
export const KAFKA_SESSION_TIMEOUT_RANGE_MS = { min: 6_000, max: 30 * 60_000 } as const;

/**
 * The consumers' session timeout and heartbeat interval: together they bound how long the partitions
 * of a dead worker wait before a live one takes them (docs/configuration.md, "Streams").
 */
function readKafkaTimings(read: (key: string) => string | undefined, problems: string[]): { kafkaSessionTimeoutMs: number; kafkaHeartbeatIntervalMs: number } {
  const sessionText = read('GATEWAY_KAFKA_SESSION_TIMEOUT');
  let session = sessionText === undefined ? 10_000 : parseDuration(sessionText);
  if (session === null || session < KAFKA_SESSION_TIMEOUT_RANGE_MS.min || session > KAFKA_SESSION_TIMEOUT_RANGE_MS.max) {
    problems.push(`GATEWAY_KAFKA_SESSION_TIMEOUT must be a duration from 6s to 30m (got "${sessionText}")`);
    session = null;
  }
  const heartbeatText = read('GATEWAY_KAFKA_HEARTBEAT_INTERVAL');
  const heartbeat = heartbeatText === undefined ? 1_000 : parseDuration(heartbeatText);
  if (heartbeat === null || heartbeat < 100) {
    problems.push(`GATEWAY_KAFKA_HEARTBEAT_INTERVAL must be a duration of at least 100ms (got "${heartbeatText}")`);
  } else if (session !== null && heartbeat * 3 > session) {
    problems.push(`GATEWAY_KAFKA_HEARTBEAT_INTERVAL must be at most a third of GATEWAY_KAFKA_SESSION_TIMEOUT (got ${heartbeat} ms against ${session} ms)`);
  }
  return { kafkaSessionTimeoutMs: session ?? 10_000, kafkaHeartbeatIntervalMs: heartbeat ?? 1_000 };
}

function readWebhookConfig(read: (key: string) => string | undefined, problems: string[]): WebhookConfig {
  const duration = (key: string, fallback: number, min: number): number => {
    const text = read(key);
    const value = text === undefined ? fallback : parseDuration(text);
    if (value === null || value < min) {
      problems.push(`${key} must be a duration of at least ${min} ms, such as 500ms, 15s, 5m, 2h or 5d (got "${text}")`);
      return fallback;
    }
    return value;
  };
  const scheduleText = read('GATEWAY_WEBHOOK_RETRY_SCHEDULE') ?? '0,5s,5m,30m,2h,5h,10h,10h';
  const retryScheduleMs = splitList(scheduleText).map(parseDuration);
  if (retryScheduleMs.length === 0 || retryScheduleMs.length > 20 || retryScheduleMs.some((d) => d === null) || retryScheduleMs[0] !== 0) {
    problems.push(`GATEWAY_WEBHOOK_RETRY_SCHEDULE must be 1 to 20 comma-separated durations starting with 0 (got "${scheduleText}")`);
  }
  const jitterText = read('GATEWAY_WEBHOOK_RETRY_JITTER') ?? '0.2';
  const retryJitter = Number(jitterText);
  if (!/^\d+(\.\d+)?$/.test(jitterText) || retryJitter > 0.5) {
    problems.push(`GATEWAY_WEBHOOK_RETRY_JITTER must be a fraction from 0 to 0.5 (got "${jitterText}")`);
  }
  const concurrency = parseInteger(read('GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY'), 4);
  if (concurrency === null || concurrency < 1 || concurrency > 100) {
    problems.push(`GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY must be an integer from 1 to 100 (got "${read('GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY')}")`);
  }
  const threads = parseInteger(read('GATEWAY_WEBHOOK_THREADS'), 1);
  if (threads === null || threads < 0 || threads > 16) {
    problems.push(`GATEWAY_WEBHOOK_THREADS must be an integer from 0 to 16 (got "${read('GATEWAY_WEBHOOK_THREADS')}")`);
  }
  return {
    timeoutMs: duration('GATEWAY_WEBHOOK_TIMEOUT', 15_000, 100),
    retryScheduleMs: retryScheduleMs.map((d) => d ?? 0),
    retryJitter,
    retryAfterMaxMs: duration('GATEWAY_WEBHOOK_RETRY_AFTER_MAX', 3_600_000, 1_000),
    endpointConcurrency: concurrency ?? 4,
    disableAfterMs: duration('GATEWAY_WEBHOOK_DISABLE_AFTER', 5 * 86_400_000, 1_000),
    retentionMs: duration('GATEWAY_WEBHOOK_RETENTION', WEBHOOK_RETENTION_DEFAULT_MS, 3_600_000),
    threads: threads ?? 1,
  };
}

/** The longest time a send may spend waiting between its tries (below the 5-minute stream lease). */
export const PROVIDER_RETRY_TOTAL_MAX_MS = 4 * 60_000;

function readProviderConfig(read: (key: string) => string | undefined, problems: string[]): ProviderConfig {
  const url = (key: string): string | null => {
    const text = read(key);
    if (text === undefined) return null;
    if (!/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(text)) {
      problems.push(`${key} must be an absolute http(s) URL without query (got "${text}")`);
      return null;
    }
    return text.replace(/\/+$/, '');
  };
  const secret = (key: string): string | null => {
    const text = read(key);
    if (text !== undefined && /\s/.test(text)) problems.push(`${key} must not contain spaces`);
    return text ?? null;
  };
  const duration = (key: string, fallback: number, min: number): number => {
    const text = read(key);
    const value = text === undefined ? fallback : parseDuration(text);
    if (value === null || value < min) {
      problems.push(`${key} must be a duration of at least ${min} ms, such as 500ms, 15s or 5m (got "${text}")`);
      return fallback;
    }
    return value;
  };
  const cloudApiUrl = url('GATEWAY_CHAT_A_BUSINESS_API_URL');
  const cloudSystemToken = secret('GATEWAY_CHAT_A_BUSINESS_TOKEN');
  const botApiUrl = url('GATEWAY_CHAT_B_API_URL');
  const connectorUrl = url('GATEWAY_CONNECTOR_URL');
  const connectorToken = secret('GATEWAY_CONNECTOR_TOKEN');
  const timeoutMs = duration('GATEWAY_PROVIDER_TIMEOUT', 15_000, 100);
  const scheduleText = read('GATEWAY_PROVIDER_RETRY_SCHEDULE') ?? '1s,5s,30s,2m';
  const schedule = scheduleText === 'none' ? [] : splitList(scheduleText).map(parseDuration);
  // The tries wait inside the job's handler, which holds the job's stream lease (5 minutes).
  const total = schedule.reduce<number>((sum, d) => sum + (d ?? 0), 0);
  if (schedule.length > 20 || schedule.some((d) => d === null) || total > PROVIDER_RETRY_TOTAL_MAX_MS) {
    problems.push(`GATEWAY_PROVIDER_RETRY_SCHEDULE must be up to 20 comma-separated durations adding up to at most 4m, or none (got "${scheduleText}")`);
  }
  const concurrency = parseInteger(read('GATEWAY_PROVIDER_CHANNEL_CONCURRENCY'), 4);
  if (concurrency === null || concurrency < 1 || concurrency > 100) {
    problems.push(`GATEWAY_PROVIDER_CHANNEL_CONCURRENCY must be an integer from 1 to 100 (got "${read('GATEWAY_PROVIDER_CHANNEL_CONCURRENCY')}")`);
  }
  const rateText = read('GATEWAY_PROVIDER_CHANNEL_RATE') ?? '20';
  const rate = Number(rateText);
  if (!/^\d+(\.\d+)?$/.test(rateText) || rate < 0.01 || rate > 10_000) {
    problems.push(`GATEWAY_PROVIDER_CHANNEL_RATE must be a number of calls per second from 0.01 to 10000 (got "${rateText}")`);
  }
  const sandboxText = (read('GATEWAY_SANDBOX') ?? 'false').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(sandboxText)) problems.push(`GATEWAY_SANDBOX must be true or false (got "${sandboxText}")`);
  return {
    cloudApiUrl,
    cloudSystemToken,
    botApiUrl,
    connectorUrl,
    connectorToken,
    timeoutMs,
    retryScheduleMs: schedule.map((d) => d ?? 0),
    channelConcurrency: concurrency ?? 4,
    channelRatePerSecond: Number.isFinite(rate) ? rate : 20,
    sandbox: sandboxText === 'true' || sandboxText === '1',
    sandboxStepMs: duration('GATEWAY_SANDBOX_STEP', 1_000, 10),
  };
}

function parseInteger(text: string | undefined, fallback: number): number | null {
  if (text === undefined) return fallback;
  return /^\d+$/.test(text) ? Number(text) : null;
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function isTokenShaped(token: string): boolean {
  return token.length >= MIN_TOKEN_LENGTH && !/\s/.test(token);
}

/** Path of the SQLite store inside the data dir. */
export function storePath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'gateway.db');
}
