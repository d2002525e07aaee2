import type { Migration } from './migration.js';

/**
 * A retry schedule per webhook endpoint (docs/api.md, "Retry schedules"): the seconds before each
 * retry as a JSON array, or NULL for the gateway-wide schedule (GATEWAY_WEBHOOK_RETRY_SCHEDULE).
 */
export const endpointRetrySchedules: Migration = {
  version: 20,
  name: 'retry schedule per webhook endpoint',
  sql: `
    ALTER TABLE webhook_endpoints ADD COLUMN retry_schedule TEXT;
  `,
};
