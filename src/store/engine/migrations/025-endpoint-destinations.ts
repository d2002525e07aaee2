import type { Migration } from './migration.js';

/**
 * Destinations beyond HTTP (docs/api.md, "Destinations"): an endpoint's `type` (`webhook`,
 * `kafka`, `rabbitmq`) and, for the broker types, their settings as JSON text, credentials
 * included (kept like the endpoints' signing secrets, never answered; docs/decisions.md). For
 * those, `url` holds the target without credentials, as the API shows it.
 */
export const endpointDestinations: Migration = {
  version: 25,
  name: 'destination type and settings per endpoint',
  sql: `
    ALTER TABLE webhook_endpoints ADD COLUMN type TEXT NOT NULL DEFAULT 'webhook';
    ALTER TABLE webhook_endpoints ADD COLUMN destination TEXT;
  `,
};
