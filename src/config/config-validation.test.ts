// Unit tests of what loadConfig refuses: the HTTP limits' bounds, every bad key named at once (in
// ConfigError's problems and its message), bad ports, log levels, brokers, tokens, durations and
// sizes, and that a rejected secret is never echoed.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { problemsOf } from '../../test/helpers/config-problems.js';

const GOOD_TOKEN = 'a'.repeat(16);

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
