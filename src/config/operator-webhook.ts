import type { ReadSetting } from './settings.js';

/**
 * The operator webhook (docs/operations.md, "Operational events"): where the gateway also sends its
 * operational events (an endpoint disabled or enabled, a delivery failed for good) of every company,
 * signed like any webhook, so the people running the gateway hear of them without polling.
 */
export interface OperatorWebhookConfig {
  /** GATEWAY_OPERATOR_WEBHOOK_URL: absolute http(s) URL; private addresses need GATEWAY_WEBHOOK_ALLOW_HOSTS like any webhook. */
  url: string;
  /**
   * GATEWAY_OPERATOR_WEBHOOK_SECRET: one or more comma-separated `whsec_` secrets (Standard
   * Webhooks, base64 of 24 to 64 bytes); each signs every delivery, so a new one can be added
   * before the old one is removed. Never logged.
   */
  secrets: string[];
}

const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/** Both variables or neither; pushes one line per bad variable onto `problems`. */
export function readOperatorWebhookConfig(read: ReadSetting, problems: string[]): OperatorWebhookConfig | null {
  const url = read('GATEWAY_OPERATOR_WEBHOOK_URL');
  const secretText = read('GATEWAY_OPERATOR_WEBHOOK_SECRET');
  if (url === undefined) {
    if (secretText !== undefined)
      problems.push('GATEWAY_OPERATOR_WEBHOOK_SECRET is set without GATEWAY_OPERATOR_WEBHOOK_URL');
    return null;
  }
  let valid = true;
  if (!/^https?:\/\/[^\s/?#]+(\/[^\s#]*)?$/.test(url) || url.length > 2048) {
    problems.push(
      `GATEWAY_OPERATOR_WEBHOOK_URL must be an absolute http(s) URL of at most 2048 characters (got "${url}")`,
    );
    valid = false;
  }
  const secrets = (secretText ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (secrets.length === 0) {
    problems.push(
      'GATEWAY_OPERATOR_WEBHOOK_SECRET is required with GATEWAY_OPERATOR_WEBHOOK_URL: one or more whsec_ secrets',
    );
    valid = false;
  } else if (!secrets.every(isWebhookSecret)) {
    // The value itself is a secret: never repeat it in the message.
    problems.push(
      'GATEWAY_OPERATOR_WEBHOOK_SECRET must be comma-separated whsec_ secrets, each whsec_ followed by the base64 of 24 to 64 bytes',
    );
    valid = false;
  }
  return valid ? { url, secrets } : null;
}

function isWebhookSecret(secret: string): boolean {
  if (!SECRET.test(secret)) return false;
  const base64 = secret.slice('whsec_'.length);
  const bytes = Buffer.from(base64, 'base64');
  return bytes.toString('base64') === base64 && bytes.length >= 24 && bytes.length <= 64;
}
