import type { Migration } from './migration.js';

/**
 * Payload filters of webhook endpoints (docs/api.md, "Payload filters"): the filter as JSON text,
 * validated when it was saved, or NULL for none. Fan-out checks it against each event's envelope.
 */
export const endpointFilters: Migration = {
  version: 19,
  name: 'payload filter per webhook endpoint',
  sql: `
    ALTER TABLE webhook_endpoints ADD COLUMN filter TEXT;
  `,
};
