import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks headers for one attempt: `webhook-signature` holds one `v1,<base64>` per
 * secret (two during a rotation), signed over `id.timestamp.body` with the raw body bytes sent.
 */
export function signatureHeaders(id: string, timestamp: Date, body: string, secrets: readonly string[]): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body));
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
