// Unit tests of loadConfig reading the environment (docs/design.md section 9): every default for an
// empty environment, blank values as unset, every setting read at once, the derived public URL and
// data dir, the log levels, and the store file's place in the data dir.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_GROUPS } from './api-limits.js';
import { LOG_LEVELS, loadConfig, storePath } from './config.js';
import { problemsOf } from '../../test/helpers/config-problems.js';

describe('loadConfig defaults (docs/design.md section 9)', () => {
  it('answers every default for an empty environment', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      workerPort: null,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      kafkaBrokers: null,
      kafkaNamespace: '',
      kafkaSessionTimeoutMs: 10_000,
      kafkaHeartbeatIntervalMs: 1_000,
      kafkaLingerMs: 5,
      shard: 0,
      shardSlots: 1,
      clusterShards: 1,
      shardUrls: [],
      frontConnectTimeoutMs: 1_000,
      frontConnections: 64,
      workerUrls: [],
      adminToken: null,
      metricsToken: null,
      operatorWebhook: null,
      bootstrapToken: null,
      webhookAllowHosts: [],
      logLevel: 'info',
      bodyLimitBytes: 1024 * 1024,
      publicUrl: 'http://127.0.0.1:3000',
      publicOrigin: null,
      trustProxy: 0,
      attachmentMaxBytes: 16 * 1024 * 1024,
      uploadConcurrency: 8,
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 120_000,
      bodyTimeoutMs: 10_000,
      jsonMaxDepth: 32,
      queryMaxBytes: 8_192,
      adminAuthFreeFailures: 10,
      adminAuthGlobalFailures: 100,
      cloudAppSecret: null,
      storeCheckpointMs: 100,
      messageRetentionMs: null,
      webhooks: {
        timeoutMs: 15_000,
        retryScheduleMs: [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
        retryJitter: 0.2,
        retryAfterMaxMs: 3_600_000,
        endpointConcurrency: 4,
        disableAfterMs: 5 * 86_400_000,
        retentionMs: 30 * 86_400_000,
        threads: 1,
        endpointMaxAttempts: 20,
        endpointMaxDelayMs: 86_400_000,
      },
      providers: {
        cloudApiUrl: null,
        cloudSystemToken: null,
        botApiUrl: null,
        connectorUrl: null,
        connectorToken: null,
        timeoutMs: 15_000,
        retryScheduleMs: [1_000, 5_000, 30_000, 120_000],
        channelConcurrency: 4,
        channelRatePerSecond: 20,
        sandbox: false,
        sandboxStepMs: 1_000,
      },
      // The documented rate limits: test/http/rate-limits.test.ts.
      apiLimits: { rateLimits: RATE_LIMIT_GROUPS, rateLimitFactor: 1, attachmentFetchTimeoutMs: 30_000 },
      tracing: { enabled: false, protocol: 'http/protobuf', serviceName: 'gateway' },
    });
  });

  it('treats empty and blank values as unset', () => {
    const config = loadConfig({
      GATEWAY_PORT: '',
      GATEWAY_HOST: '  ',
      GATEWAY_DATA_DIR: '',
      GATEWAY_KAFKA_BROKERS: ' ',
      GATEWAY_ADMIN_TOKEN: '',
      GATEWAY_BOOTSTRAP_TOKEN: '',
      GATEWAY_WEBHOOK_ALLOW_HOSTS: '',
      GATEWAY_LOG_LEVEL: '',
    });
    expect(config).toEqual(loadConfig({}));
  });

  it('does not read process.env keys other than the ones it is given', () => {
    expect(loadConfig({ UNRELATED: 'x', PORT: '1' }).port).toBe(3000);
  });
});

describe('loadConfig values', () => {
  it('reads every setting', () => {
    const config = loadConfig({
      GATEWAY_PORT: '8080',
      GATEWAY_HOST: '0.0.0.0',
      GATEWAY_DATA_DIR: '/var/lib/gateway',
      GATEWAY_KAFKA_BROKERS: 'kafka-1:9092, kafka-2:9093,127.0.0.1:19092',
      GATEWAY_ADMIN_TOKEN: 'admin-token-0123456789',
      GATEWAY_BOOTSTRAP_TOKEN: 'bootstrap-token-0123456789',
      GATEWAY_METRICS_TOKEN: 'metrics-token-0123456789',
      GATEWAY_WEBHOOK_ALLOW_HOSTS: 'Hooks.Example.com, 10.0.0.5',
      GATEWAY_LOG_LEVEL: 'debug',
      GATEWAY_BODY_LIMIT_BYTES: '2048',
      GATEWAY_PUBLIC_URL: 'https://gateway.example.com/base/',
      GATEWAY_ATTACHMENT_MAX_BYTES: '1048576',
      GATEWAY_CHAT_A_BUSINESS_APP_SECRET: '0123456789abcdef0123456789abcdef',
      GATEWAY_STORE_CHECKPOINT_INTERVAL: '1s',
      GATEWAY_MESSAGE_RETENTION: '90d',
      GATEWAY_UPLOAD_CONCURRENCY: '3',
      GATEWAY_HEADERS_TIMEOUT: '5s',
      GATEWAY_REQUEST_TIMEOUT: '30s',
      GATEWAY_JSON_MAX_DEPTH: '64',
      GATEWAY_QUERY_MAX_BYTES: '4096',
      GATEWAY_TRUST_PROXY: '2',
      GATEWAY_BODY_TIMEOUT: '3s',
      GATEWAY_ADMIN_AUTH_FREE_FAILURES: '5',
      GATEWAY_ADMIN_AUTH_GLOBAL_FAILURES: '50',
      GATEWAY_KAFKA_SESSION_TIMEOUT: '45s',
      GATEWAY_KAFKA_HEARTBEAT_INTERVAL: '3s',
      GATEWAY_KAFKA_LINGER: '10ms',
      GATEWAY_SHARD: '2',
      GATEWAY_SHARD_SLOTS: '64',
      GATEWAY_CLUSTER_SHARDS: '3',
      GATEWAY_SHARD_URLS: 'http://core-0:3000,http://core-1:3000/,https://core-2.internal',
      GATEWAY_FRONT_CONNECT_TIMEOUT: '250ms',
      GATEWAY_FRONT_CONNECTIONS: '16',
      GATEWAY_WORKER_URLS: 'http://worker-0:9464/,http://workers.internal:9464',
      GATEWAY_WORKER_PORT: '9464',
      GATEWAY_API_RATE_LIMITS: 'off',
      GATEWAY_API_RATE_LIMIT_FACTOR: '2',
      GATEWAY_ATTACHMENT_FETCH_TIMEOUT: '5s',
    });
    expect(config).toEqual({
      port: 8080,
      workerPort: 9464,
      host: '0.0.0.0',
      dataDir: '/var/lib/gateway',
      kafkaBrokers: ['kafka-1:9092', 'kafka-2:9093', '127.0.0.1:19092'],
      kafkaNamespace: '',
      kafkaSessionTimeoutMs: 45_000,
      kafkaHeartbeatIntervalMs: 3_000,
      kafkaLingerMs: 10,
      shard: 2,
      shardSlots: 64,
      clusterShards: 3,
      shardUrls: ['http://core-0:3000', 'http://core-1:3000', 'https://core-2.internal'],
      frontConnectTimeoutMs: 250,
      frontConnections: 16,
      workerUrls: ['http://worker-0:9464', 'http://workers.internal:9464'],
      adminToken: 'admin-token-0123456789',
      metricsToken: 'metrics-token-0123456789',
      operatorWebhook: null,
      bootstrapToken: 'bootstrap-token-0123456789',
      webhookAllowHosts: ['hooks.example.com', '10.0.0.5'],
      logLevel: 'debug',
      bodyLimitBytes: 2048,
      publicUrl: 'https://gateway.example.com/base',
      publicOrigin: 'https://gateway.example.com',
      trustProxy: 2,
      bodyTimeoutMs: 3_000,
      adminAuthFreeFailures: 5,
      adminAuthGlobalFailures: 50,
      attachmentMaxBytes: 1048576,
      uploadConcurrency: 3,
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 30_000,
      jsonMaxDepth: 64,
      queryMaxBytes: 4096,
      cloudAppSecret: '0123456789abcdef0123456789abcdef',
      storeCheckpointMs: 1_000,
      messageRetentionMs: 90 * 86_400_000,
      webhooks: loadConfig({}).webhooks,
      providers: loadConfig({}).providers,
      apiLimits: { rateLimits: [], rateLimitFactor: 2, attachmentFetchTimeoutMs: 5_000 },
      tracing: loadConfig({}).tracing,
    });
  });

  it('derives the public URL from host and port, with loopback for a wildcard host', () => {
    expect(loadConfig({ GATEWAY_HOST: '0.0.0.0', GATEWAY_PORT: '8080' }).publicUrl).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ GATEWAY_HOST: 'gw.internal' }).publicUrl).toBe('http://gw.internal:3000');
  });

  it('refuses a public URL that is not an absolute http(s) URL', () => {
    for (const bad of ['gateway.example.com', 'ftp://x', 'https://x/?q=1']) {
      expect(() => loadConfig({ GATEWAY_PUBLIC_URL: bad })).toThrow(/GATEWAY_PUBLIC_URL/);
    }
  });

  it('refuses a cloud-style app secret that is short or has spaces', () => {
    expect(problemsOf({ GATEWAY_CHAT_A_BUSINESS_APP_SECRET: 'short' })).toEqual([
      'GATEWAY_CHAT_A_BUSINESS_APP_SECRET must be at least 16 characters without spaces',
    ]);
    expect(problemsOf({ GATEWAY_CHAT_A_BUSINESS_APP_SECRET: 'has a space in the middle' })).toHaveLength(1);
  });

  it("reads the worker's health port, and refuses what is not a port", () => {
    expect(loadConfig({ GATEWAY_WORKER_PORT: '0' }).workerPort).toBe(0);
    for (const value of ['65536', '-1', 'http']) {
      expect(problemsOf({ GATEWAY_WORKER_PORT: value }), value).toEqual([
        `GATEWAY_WORKER_PORT must be an integer from 0 to 65535 (got "${value}")`,
      ]);
    }
  });

  it('accepts port 0 (a free port) and 65535', () => {
    expect(loadConfig({ GATEWAY_PORT: '0' }).port).toBe(0);
    expect(loadConfig({ GATEWAY_PORT: '65535' }).port).toBe(65535);
  });

  it('resolves a relative data dir to an absolute path', () => {
    expect(loadConfig({ GATEWAY_DATA_DIR: 'some/dir' }).dataDir).toBe(path.resolve('some/dir'));
  });

  it.each(LOG_LEVELS)('accepts log level %s', (level) => {
    expect(loadConfig({ GATEWAY_LOG_LEVEL: level }).logLevel).toBe(level);
  });

  it('places the store file inside the data dir', () => {
    expect(storePath({ dataDir: '/tmp/x' })).toBe(path.join('/tmp/x', 'gateway.db'));
  });
});
