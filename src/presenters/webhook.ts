import type { FromSchema } from 'json-schema-to-ts';
import type { WebhookEventType, webhookObject } from '../../schemas/objects/webhook.js';
import type { EndpointFilter } from '../../schemas/objects/endpoint-filter.js';
import { publicKeyOf, signingAlgorithmOf } from '../lib/signing-keys.js';
import { toIso } from '../lib/time.js';
import type { WebhookEndpointRow } from '../store/resources/webhooks.js';
import { presentDestination } from './destination.js';

/** A company webhook endpoint, as schemas/objects/webhook.ts describes it. */
export type WebhookObject = FromSchema<typeof webhookObject>;

/**
 * A company webhook endpoint. The signing secret is shown only when `withSecret` is set: in the
 * answers of create and rotate_secret, once.
 */
export function presentWebhook(row: WebhookEndpointRow, { withSecret = false } = {}): WebhookObject {
  return {
    id: row.id,
    company_id: row.company_id,
    source: row.source,
    url: row.url,
    event_types: row.event_types === null ? null : (JSON.parse(row.event_types) as WebhookEventType[]),
    active: row.active === 1,
    disabled_reason: row.disabled_reason,
    ordering: row.ordering,
    rate_limit: row.rate_limit,
    previous_secret_expires_at: row.previous_secret_expires_at === null ? null : toIso(row.previous_secret_expires_at),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    ...(withSecret ? { secret: row.secret } : {}),
    ...(signingAlgorithmOf(row.secret) === 'ed25519'
      ? { signing_algorithm: 'ed25519' as const, public_key: publicKeyOf(row.secret) }
      : {}),
    // The options show only on endpoints that have them: the others answer exactly as before.
    ...(row.retry_schedule !== null ? { retry_schedule: JSON.parse(row.retry_schedule) as number[] } : {}),
    ...(row.filter !== null ? { filter: JSON.parse(row.filter) as EndpointFilter } : {}),
    // A broker endpoint's type and settings, credentials left out; a webhook's answer has neither.
    ...presentDestination(row),
  };
}
