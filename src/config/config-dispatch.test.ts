// Unit tests of loadConfig's settings for delivery: the webhook dispatcher (docs/design.md section 7),
// the Kafka namespace, linger, session timeout and heartbeat, the shards and worker URLs of a cluster,
// and the provider senders (section 8): what each reads and what each refuses.
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { problemsOf } from '../../test/helpers/config-problems.js';

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
