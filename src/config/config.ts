import path from 'node:path';

/** Every setting of the daemon, read from the environment. Defaults per DESIGN.md section 9. */
export interface Config {
  /** GATEWAY_PORT: TCP port of the HTTP server (0 picks a free one). Default 3000. */
  port: number;
  /** GATEWAY_HOST: address to listen on. Default 127.0.0.1; the container sets 0.0.0.0. */
  host: string;
  /** GATEWAY_DATA_DIR: folder holding the SQLite store and uploaded files. Default ./data. */
  dataDir: string;
  /** GATEWAY_KAFKA_BROKERS: comma-separated host:port list; unset means embedded streams in SQLite. */
  kafkaBrokers: string[] | null;
  /** GATEWAY_ADMIN_TOKEN: bearer token of the /admin API; unset turns the admin API off. */
  adminToken: string | null;
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

  const adminToken = read('GATEWAY_ADMIN_TOKEN') ?? null;
  if (adminToken !== null && !isTokenShaped(adminToken)) {
    problems.push(`GATEWAY_ADMIN_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters without spaces`);
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

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: port!,
    host,
    dataDir,
    kafkaBrokers,
    adminToken,
    bootstrapToken,
    webhookAllowHosts,
    logLevel: logLevel as LogLevel,
    bodyLimitBytes: bodyLimitBytes!,
    publicUrl: publicUrl.replace(/\/+$/, ''),
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
