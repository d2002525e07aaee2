import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { matchesSecretDigest } from '../domain/tokens.js';

/** The header the bot-style provider repeats on every update: the secret token given when the webhook was registered. */
export const BOT_SECRET_HEADER = 'x-bot-api-secret-token';
/** The cloud-style signature header: `sha256=<hex HMAC-SHA256 of the raw body with the app secret>`. */
export const CLOUD_SIGNATURE_HEADER = 'x-hub-signature-256';

/** Why a callback was not accepted as signed, or null when it was. Sentences for the 401 answer; they never hold a secret. */
export type VerifyResult = string | null;

/** Cloud-style: `X-Hub-Signature-256: sha256=<hex>` over the raw body, keyed by the app secret. */
export function verifyCloudSignature(rawBody: Buffer, header: string, appSecret: string): VerifyResult {
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (header === '') return `The ${CLOUD_SIGNATURE_HEADER} header is missing.`;
  if (!match) return `The ${CLOUD_SIGNATURE_HEADER} header must be sha256=<64 hex digits>.`;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(match[1]!, 'hex'), expected)
    ? null
    : `The ${CLOUD_SIGNATURE_HEADER} signature does not match the body.`;
}

/**
 * Bot-style: the secret token header must be the channel's, given as its secretDigest
 * (src/domain/tokens.ts), which the route keeps between callbacks.
 */
export function verifyBotSecretDigest(header: string, secretTokenDigest: Buffer): VerifyResult {
  if (header === '') return `The ${BOT_SECRET_HEADER} header is missing.`;
  return matchesSecretDigest(header, secretTokenDigest)
    ? null
    : `The ${BOT_SECRET_HEADER} header does not match the channel's secret token.`;
}

/**
 * Connector: Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`) over the
 * body with the channel's `whsec_` secret; the library compares in constant time and refuses
 * timestamps more than 5 minutes away. It signs text, so `body` is the strictly decoded UTF-8 of
 * the bytes received (utf8Body: invalid UTF-8 never gets here), which encodes back to those bytes.
 */
export function verifyStandardWebhook(body: string, headers: Record<string, string>, secret: string): VerifyResult {
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    if ((headers[name] ?? '') === '') return `The ${name} header is missing.`;
  }
  try {
    new Webhook(secret).verify(body, headers, { jsonParse: false });
    return null;
  } catch (error) {
    if (error instanceof WebhookVerificationError)
      return `The Standard Webhooks signature was refused: ${error.message}.`;
    throw error;
  }
}
