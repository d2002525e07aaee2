import type { WebhookEndpointRow } from '../store/webhooks.js';

/** Secrets that sign a delivery now: the current one, plus the previous one until its rotation window ends. */
export function signingSecrets(endpoint: WebhookEndpointRow, now: number): string[] {
  const previousValid = endpoint.previous_secret !== null && (endpoint.previous_secret_expires_at ?? 0) > now;
  return previousValid ? [endpoint.secret, endpoint.previous_secret!] : [endpoint.secret];
}
