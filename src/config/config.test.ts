import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_GROUPS } from './api-limits.js';
import { ConfigError, LOG_LEVELS, loadConfig, storePath } from './config.js';
import { problemsOf } from '../../test/helpers/config-problems.js';

const GOOD_TOKEN = 'a'.repeat(16);

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

describe('loadConfig HTTP limits', () => {
  it.each([
    ['GATEWAY_UPLOAD_CONCURRENCY', '0', 'GATEWAY_UPLOAD_CONCURRENCY must be an integer from 1 to 1000 (got "0")'],
    ['GATEWAY_UPLOAD_CONCURRENCY', 'many', 'GATEWAY_UPLOAD_CONCURRENCY must be an integer from 1 to 1000 (got "many")'],
    ['GATEWAY_JSON_MAX_DEPTH', '1', 'GATEWAY_JSON_MAX_DEPTH must be an integer from 2 to 1000 (got "1")'],
    ['GATEWAY_JSON_MAX_DEPTH', '1001', 'GATEWAY_JSON_MAX_DEPTH must be an integer from 2 to 1000 (got "1001")'],
    ['GATEWAY_QUERY_MAX_BYTES', '100', 'GATEWAY_QUERY_MAX_BYTES must be an integer from 256 to 16384 (got "100")'],
    ['GATEWAY_QUERY_MAX_BYTES', '16385', 'GATEWAY_QUERY_MAX_BYTES must be an integer from 256 to 16384 (got "16385")'],
    [
      'GATEWAY_HEADERS_TIMEOUT',
      '500ms',
      'GATEWAY_HEADERS_TIMEOUT must be a duration of at least 1000 ms, such as 20s or 2m (got "500ms")',
    ],
    [
      'GATEWAY_REQUEST_TIMEOUT',
      'soon',
      'GATEWAY_REQUEST_TIMEOUT must be a duration of at least 1000 ms, such as 20s or 2m (got "soon")',
    ],
  ])('rejects %s=%s', (key, value, problem) => {
    expect(problemsOf({ [key]: value })).toEqual([problem]);
  });

  it('refuses a request timeout shorter than the headers timeout', () => {
    expect(problemsOf({ GATEWAY_HEADERS_TIMEOUT: '30s', GATEWAY_REQUEST_TIMEOUT: '10s' })).toEqual([
      'GATEWAY_REQUEST_TIMEOUT must be at least GATEWAY_HEADERS_TIMEOUT (got 10000 ms and 30000 ms)',
    ]);
  });

  it('accepts the bounds', () => {
    const config = loadConfig({
      GATEWAY_UPLOAD_CONCURRENCY: '1',
      GATEWAY_JSON_MAX_DEPTH: '1000',
      GATEWAY_QUERY_MAX_BYTES: '16384',
      GATEWAY_HEADERS_TIMEOUT: '1s',
      GATEWAY_REQUEST_TIMEOUT: '1s',
    });
    expect([
      config.uploadConcurrency,
      config.jsonMaxDepth,
      config.queryMaxBytes,
      config.headersTimeoutMs,
      config.requestTimeoutMs,
    ]).toEqual([1, 1000, 16384, 1000, 1000]);
  });
});

describe('loadConfig problems', () => {
  it('names every bad key at once', () => {
    const problems = problemsOf({
      GATEWAY_PORT: 'eighty',
      GATEWAY_LOG_LEVEL: 'loud',
      GATEWAY_ADMIN_TOKEN: 'short',
      GATEWAY_KAFKA_BROKERS: 'kafka-without-port',
    });
    expect(problems).toHaveLength(4);
    for (const key of ['GATEWAY_PORT', 'GATEWAY_LOG_LEVEL', 'GATEWAY_ADMIN_TOKEN', 'GATEWAY_KAFKA_BROKERS']) {
      expect(
        problems.filter((p) => p.includes(key)),
        key,
      ).toHaveLength(1);
    }
  });

  it('reports every bad key in the error message too', () => {
    let error: unknown;
    try {
      loadConfig({ GATEWAY_PORT: '99999', GATEWAY_BOOTSTRAP_TOKEN: 'tiny', GATEWAY_BODY_LIMIT_BYTES: '10' });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(Error);
    const config = error as ConfigError;
    expect(config.name).toBe('ConfigError');
    expect(config.problems).toHaveLength(3);
    for (const key of ['GATEWAY_PORT', 'GATEWAY_BOOTSTRAP_TOKEN', 'GATEWAY_BODY_LIMIT_BYTES']) {
      expect(config.message).toContain(key);
    }
  });

  it.each(['abc', '-1', '65536', '99999', '80.5', '3000abc', '0x50'])('rejects GATEWAY_PORT=%s', (port) => {
    const problems = problemsOf({ GATEWAY_PORT: port });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('GATEWAY_PORT');
  });

  it.each(['loud', 'verbose', 'warning', '3'])('rejects GATEWAY_LOG_LEVEL=%s', (level) => {
    const problems = problemsOf({ GATEWAY_LOG_LEVEL: level });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('GATEWAY_LOG_LEVEL');
  });

  it.each([
    'kafka',
    'kafka:',
    ':9092',
    'kafka:port',
    'kafka:9092,broken',
    ',',
    'kafka:9092;kafka2:9092',
    'http://kafka:9092',
  ])('rejects GATEWAY_KAFKA_BROKERS=%s', (brokers) => {
    const problems = problemsOf({ GATEWAY_KAFKA_BROKERS: brokers });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('GATEWAY_KAFKA_BROKERS');
  });

  it.each([
    ['GATEWAY_ADMIN_TOKEN', 'short'],
    ['GATEWAY_ADMIN_TOKEN', 'a'.repeat(15)],
    ['GATEWAY_ADMIN_TOKEN', 'has a space in the middle'],
    ['GATEWAY_BOOTSTRAP_TOKEN', 'short'],
    ['GATEWAY_BOOTSTRAP_TOKEN', 'tab\tinside-the-token-value'],
    ['GATEWAY_METRICS_TOKEN', 'short'],
  ])('rejects %s=%j', (key, value) => {
    const problems = problemsOf({ [key]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(key);
  });

  it('accepts tokens of 16 characters', () => {
    const config = loadConfig({ GATEWAY_ADMIN_TOKEN: GOOD_TOKEN, GATEWAY_BOOTSTRAP_TOKEN: GOOD_TOKEN });
    expect(config.adminToken).toBe(GOOD_TOKEN);
    expect(config.bootstrapToken).toBe(GOOD_TOKEN);
  });

  it('rejects a host with whitespace and a body limit below 1 KiB', () => {
    const problems = problemsOf({ GATEWAY_HOST: 'local host', GATEWAY_BODY_LIMIT_BYTES: '1023' });
    expect(problems).toHaveLength(2);
    expect(problems.some((p) => p.includes('GATEWAY_HOST'))).toBe(true);
    expect(problems.some((p) => p.includes('GATEWAY_BODY_LIMIT_BYTES'))).toBe(true);
  });

  it('turns the checkpoint thread off with 0, and refuses what is not a duration up to 60 s', () => {
    expect(loadConfig({ GATEWAY_STORE_CHECKPOINT_INTERVAL: '0' }).storeCheckpointMs).toBe(0);
    for (const value of ['-1', 'often', '61s']) {
      const problems = problemsOf({ GATEWAY_STORE_CHECKPOINT_INTERVAL: value });
      expect(problems, value).toHaveLength(1);
      expect(problems[0]).toContain('GATEWAY_STORE_CHECKPOINT_INTERVAL');
    }
  });

  it('reads the message retention as a duration of at least a day, or none', () => {
    expect(loadConfig({ GATEWAY_MESSAGE_RETENTION: '90d' }).messageRetentionMs).toBe(90 * 86_400_000);
    expect(loadConfig({ GATEWAY_MESSAGE_RETENTION: '36h' }).messageRetentionMs).toBe(36 * 3_600_000);
    expect(loadConfig({ GATEWAY_MESSAGE_RETENTION: 'none' }).messageRetentionMs).toBeNull();
    for (const value of ['23h', '0', 'forever', '-1d']) {
      expect(problemsOf({ GATEWAY_MESSAGE_RETENTION: value }), value).toEqual([
        `GATEWAY_MESSAGE_RETENTION must be a duration of at least 1d, such as 90d, or none (got "${value}")`,
      ]);
    }
  });

  it.each(['1023', '0', '-5', '16MiB', '1.5'])('rejects GATEWAY_ATTACHMENT_MAX_BYTES=%s', (value) => {
    const problems = problemsOf({ GATEWAY_ATTACHMENT_MAX_BYTES: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('GATEWAY_ATTACHMENT_MAX_BYTES');
  });

  it('never echoes a rejected secret', () => {
    const secret = 'short secret';
    const problems = problemsOf({ GATEWAY_ADMIN_TOKEN: secret, GATEWAY_BOOTSTRAP_TOKEN: 'other secret' });
    expect(problems.join('\n')).not.toContain('short secret');
    expect(problems.join('\n')).not.toContain('other secret');
  });
});

describe('webhook dispatcher settings', () => {
  it('reads durations, the schedule, jitter and concurrency', () => {
    const { webhooks } = loadConfig({
      GATEWAY_WEBHOOK_TIMEOUT: '2s',
      GATEWAY_WEBHOOK_RETRY_SCHEDULE: '0, 1s, 1m',
      GATEWAY_WEBHOOK_RETRY_JITTER: '0',
      GATEWAY_WEBHOOK_RETRY_AFTER_MAX: '10m',
      GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      GATEWAY_WEBHOOK_DISABLE_AFTER: '1d',
      GATEWAY_WEBHOOK_RETENTION: '7d',
      GATEWAY_WEBHOOK_THREADS: '0',
      GATEWAY_WEBHOOK_ENDPOINT_MAX_ATTEMPTS: '5',
      GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY: '7d',
    });
    expect(webhooks).toEqual({
      timeoutMs: 2_000,
      retryScheduleMs: [0, 1_000, 60_000],
      retryJitter: 0,
      retryAfterMaxMs: 600_000,
      endpointConcurrency: 2,
      disableAfterMs: 86_400_000,
      retentionMs: 7 * 86_400_000,
      threads: 0,
      endpointMaxAttempts: 5,
      endpointMaxDelayMs: 7 * 86_400_000,
    });
  });

  it.each([
    [
      'GATEWAY_WEBHOOK_ENDPOINT_MAX_ATTEMPTS',
      '0',
      'GATEWAY_WEBHOOK_ENDPOINT_MAX_ATTEMPTS must be an integer from 1 to 20 (got "0")',
    ],
    [
      'GATEWAY_WEBHOOK_ENDPOINT_MAX_ATTEMPTS',
      '21',
      'GATEWAY_WEBHOOK_ENDPOINT_MAX_ATTEMPTS must be an integer from 1 to 20 (got "21")',
    ],
    [
      'GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY',
      '500ms',
      'GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY must be a duration of at least 1000 ms, such as 500ms, 15s, 5m, 2h or 5d (got "500ms")',
    ],
    [
      'GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY',
      '8d',
      'GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY must be at most 7d (got 691200000 ms)',
    ],
  ])('refuses %s=%s', (key, value, problem) => {
    expect(problemsOf({ [key]: value })).toEqual([problem]);
  });

  it('reads the Kafka namespace and refuses characters a topic name cannot hold', () => {
    expect(loadConfig({ GATEWAY_KAFKA_NAMESPACE: 'staging.' }).kafkaNamespace).toBe('staging.');
    expect(problemsOf({ GATEWAY_KAFKA_NAMESPACE: 'a b' })[0]).toMatch(/GATEWAY_KAFKA_NAMESPACE/);
  });

  it('refuses a shard outside its slots and shard URLs that are not base URLs', () => {
    expect(problemsOf({ GATEWAY_SHARD: '1' })).toEqual([
      'GATEWAY_SHARD must be an integer from 0 to GATEWAY_SHARD_SLOTS − 1 = 0 (got "1")',
    ]);
    expect(problemsOf({ GATEWAY_SHARD_SLOTS: '0' })[0]).toBe(
      'GATEWAY_SHARD_SLOTS must be an integer from 1 to 1024 (got "0")',
    );
    expect(problemsOf({ GATEWAY_SHARD_SLOTS: '4', GATEWAY_SHARD_URLS: 'http://a:1,ftp://b' })).toEqual([
      'GATEWAY_SHARD_URLS must be a comma-separated list of http(s) base URLs (bad: ftp://b)',
    ]);
    expect(problemsOf({ GATEWAY_CLUSTER_SHARDS: '65', GATEWAY_SHARD_SLOTS: '64' })).toEqual([
      'GATEWAY_CLUSTER_SHARDS must be an integer from 1 to GATEWAY_SHARD_SLOTS = 64 (got "65")',
    ]);
    expect(problemsOf({ GATEWAY_SHARD_URLS: 'http://a:1,http://b:2' })).toEqual([
      'GATEWAY_SHARD_URLS names 2 shards, more than GATEWAY_SHARD_SLOTS (1)',
    ]);
  });

  it('refuses a worker URL that is not an http(s) base URL', () => {
    expect(problemsOf({ GATEWAY_WORKER_URLS: 'http://w:9464,tcp://x' })).toEqual([
      'GATEWAY_WORKER_URLS must be a comma-separated list of http(s) base URLs (bad: tcp://x)',
    ]);
  });

  it("reads the producers' linger, and refuses one that is not a duration up to 1s", () => {
    expect(loadConfig({ GATEWAY_KAFKA_LINGER: '0' }).kafkaLingerMs).toBe(0);
    expect(loadConfig({ GATEWAY_KAFKA_LINGER: '20ms' }).kafkaLingerMs).toBe(20);
    for (const value of ['2s', 'soon', '-1ms']) {
      expect(problemsOf({ GATEWAY_KAFKA_LINGER: value }), value).toEqual([
        `GATEWAY_KAFKA_LINGER must be a duration up to 1s, such as 5ms, or 0 (got "${value}")`,
      ]);
    }
  });

  it("reads the consumers' session timeout and heartbeat interval, and refuses what a broker or kafkajs would", () => {
    expect(loadConfig({ GATEWAY_KAFKA_SESSION_TIMEOUT: '6s', GATEWAY_KAFKA_HEARTBEAT_INTERVAL: '2s' })).toMatchObject({
      kafkaSessionTimeoutMs: 6_000,
      kafkaHeartbeatIntervalMs: 2_000,
    });
    expect(loadConfig({ GATEWAY_KAFKA_SESSION_TIMEOUT: '30m' }).kafkaSessionTimeoutMs).toBe(1_800_000);
    expect(loadConfig({ GATEWAY_KAFKA_HEARTBEAT_INTERVAL: '100ms' }).kafkaHeartbeatIntervalMs).toBe(100);
    for (const value of ['5s', '31m', 'soon', '-1s']) {
      expect(problemsOf({ GATEWAY_KAFKA_SESSION_TIMEOUT: value }), value).toEqual([
        `GATEWAY_KAFKA_SESSION_TIMEOUT must be a duration from 6s to 30m (got "${value}")`,
      ]);
    }
    for (const value of ['99ms', 'often']) {
      expect(problemsOf({ GATEWAY_KAFKA_HEARTBEAT_INTERVAL: value }), value).toEqual([
        `GATEWAY_KAFKA_HEARTBEAT_INTERVAL must be a duration of at least 100ms (got "${value}")`,
      ]);
    }
    // A heartbeat more than a third of the session timeout: one late heartbeat could drop a live member.
    expect(problemsOf({ GATEWAY_KAFKA_SESSION_TIMEOUT: '6s', GATEWAY_KAFKA_HEARTBEAT_INTERVAL: '2001ms' })).toEqual([
      'GATEWAY_KAFKA_HEARTBEAT_INTERVAL must be at most a third of GATEWAY_KAFKA_SESSION_TIMEOUT (got 2001 ms against 6000 ms)',
    ]);
    expect(problemsOf({ GATEWAY_KAFKA_HEARTBEAT_INTERVAL: '4s' })).toEqual([
      'GATEWAY_KAFKA_HEARTBEAT_INTERVAL must be at most a third of GATEWAY_KAFKA_SESSION_TIMEOUT (got 4000 ms against 10000 ms)',
    ]);
  });

  it('names every bad dispatcher key', () => {
    const problems = problemsOf({
      GATEWAY_WEBHOOK_TIMEOUT: 'soon',
      GATEWAY_WEBHOOK_RETRY_SCHEDULE: '5s,1m',
      GATEWAY_WEBHOOK_RETRY_JITTER: '0.9',
      GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY: '0',
      GATEWAY_WEBHOOK_THREADS: '17',
      // Under an hour: a slip of the unit (30 meaning ms) must not empty the deliveries.
      GATEWAY_WEBHOOK_RETENTION: '30',
    });
    for (const key of [
      'GATEWAY_WEBHOOK_TIMEOUT',
      'GATEWAY_WEBHOOK_RETRY_SCHEDULE',
      'GATEWAY_WEBHOOK_RETRY_JITTER',
      'GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY',
      'GATEWAY_WEBHOOK_THREADS',
      'GATEWAY_WEBHOOK_RETENTION',
    ]) {
      expect(
        problems.filter((p) => p.includes(key)),
        key,
      ).toHaveLength(1);
    }
  });
});

describe('provider settings', () => {
  it('reads base addresses, tokens, the retry schedule, limits and the sandbox', () => {
    expect(
      loadConfig({
        GATEWAY_CHAT_A_BUSINESS_API_URL: 'https://graph.example.com/v21.0/',
        GATEWAY_CHAT_A_BUSINESS_TOKEN: 'EAAG-system',
        GATEWAY_CHAT_B_API_URL: 'https://api.bot.example',
        GATEWAY_CONNECTOR_URL: 'http://connector.internal:8080/v1',
        GATEWAY_CONNECTOR_TOKEN: 'connector-secret',
        GATEWAY_PROVIDER_TIMEOUT: '5s',
        GATEWAY_PROVIDER_RETRY_SCHEDULE: '500ms, 2s',
        GATEWAY_PROVIDER_CHANNEL_CONCURRENCY: '2',
        GATEWAY_PROVIDER_CHANNEL_RATE: '0.5',
        GATEWAY_SANDBOX: 'TRUE',
        GATEWAY_SANDBOX_STEP: '250ms',
      }).providers,
    ).toEqual({
      cloudApiUrl: 'https://graph.example.com/v21.0',
      cloudSystemToken: 'EAAG-system',
      botApiUrl: 'https://api.bot.example',
      connectorUrl: 'http://connector.internal:8080/v1',
      connectorToken: 'connector-secret',
      timeoutMs: 5_000,
      retryScheduleMs: [500, 2_000],
      channelConcurrency: 2,
      channelRatePerSecond: 0.5,
      sandbox: true,
      sandboxStepMs: 250,
    });
    expect(loadConfig({ GATEWAY_PROVIDER_RETRY_SCHEDULE: 'none' }).providers.retryScheduleMs).toEqual([]);
    // The tries wait under the job's stream lease: more than 4 minutes in all is refused.
    expect(problemsOf({ GATEWAY_PROVIDER_RETRY_SCHEDULE: '3m,2m' })).toEqual([expect.stringContaining('at most 4m')]);
  });

  it('names every bad provider key', () => {
    const problems = problemsOf({
      GATEWAY_CHAT_A_BUSINESS_API_URL: 'graph.example.com',
      GATEWAY_CONNECTOR_URL: 'http://x/?q=1',
      GATEWAY_CONNECTOR_TOKEN: 'has space',
      GATEWAY_PROVIDER_TIMEOUT: 'soon',
      GATEWAY_PROVIDER_RETRY_SCHEDULE: '1s,later',
      GATEWAY_PROVIDER_CHANNEL_CONCURRENCY: '0',
      GATEWAY_PROVIDER_CHANNEL_RATE: '-1',
      GATEWAY_SANDBOX: 'maybe',
    });
    expect(problems.map((p) => p.split(' ')[0])).toEqual([
      'GATEWAY_CHAT_A_BUSINESS_API_URL',
      'GATEWAY_CONNECTOR_URL',
      'GATEWAY_CONNECTOR_TOKEN',
      'GATEWAY_PROVIDER_TIMEOUT',
      'GATEWAY_PROVIDER_RETRY_SCHEDULE',
      'GATEWAY_PROVIDER_CHANNEL_CONCURRENCY',
      'GATEWAY_PROVIDER_CHANNEL_RATE',
      'GATEWAY_SANDBOX',
    ]);
  });
});
