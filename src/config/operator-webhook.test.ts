import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { problemsOf } from '../../test/helpers/config-problems.js';

const secret = (bytes = 24) => `whsec_${randomBytes(bytes).toString('base64')}`;

describe('GATEWAY_OPERATOR_WEBHOOK_URL and _SECRET', () => {
  it('is off when unset', () => {
    expect(loadConfig({}).operatorWebhook).toBeNull();
  });

  it('reads the URL and one or more secrets', () => {
    const [a, b] = [secret(), secret(64)];
    expect(
      loadConfig({
        GATEWAY_OPERATOR_WEBHOOK_URL: 'https://ops.example.com/hooks',
        GATEWAY_OPERATOR_WEBHOOK_SECRET: `${a}, ${b}`,
      }).operatorWebhook,
    ).toEqual({
      url: 'https://ops.example.com/hooks',
      secrets: [a, b],
    });
  });

  it('refuses a URL without a secret, a secret without a URL, and bad values, without repeating a secret', () => {
    expect(problemsOf({ GATEWAY_OPERATOR_WEBHOOK_URL: 'https://ops.example.com/hooks' })).toEqual([
      'GATEWAY_OPERATOR_WEBHOOK_SECRET is required with GATEWAY_OPERATOR_WEBHOOK_URL: one or more whsec_ secrets',
    ]);
    expect(problemsOf({ GATEWAY_OPERATOR_WEBHOOK_SECRET: secret() })).toEqual([
      'GATEWAY_OPERATOR_WEBHOOK_SECRET is set without GATEWAY_OPERATOR_WEBHOOK_URL',
    ]);
    expect(
      problemsOf({ GATEWAY_OPERATOR_WEBHOOK_URL: 'ftp://ops.example.com', GATEWAY_OPERATOR_WEBHOOK_SECRET: secret() }),
    ).toEqual([
      'GATEWAY_OPERATOR_WEBHOOK_URL must be an absolute http(s) URL of at most 2048 characters (got "ftp://ops.example.com")',
    ]);
    for (const bad of [
      'not-a-secret-at-all-1234',
      secret(16),
      `${secret()},whsec_!!`,
      `whsec_${randomBytes(24).toString('base64url')}-_`,
    ]) {
      const problems = problemsOf({
        GATEWAY_OPERATOR_WEBHOOK_URL: 'https://ops.example.com/hooks',
        GATEWAY_OPERATOR_WEBHOOK_SECRET: bad,
      });
      expect(problems).toEqual([
        'GATEWAY_OPERATOR_WEBHOOK_SECRET must be comma-separated whsec_ secrets, each whsec_ followed by the base64 of 24 to 64 bytes',
      ]);
      expect(problems.join('')).not.toContain(bad);
    }
  });
});
