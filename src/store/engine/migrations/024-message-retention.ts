import type { Migration } from './migration.js';

/**
 * Retention of messages (docs/api.md, "Data lifecycle"): a company's own period in days, NULL for
 * the operator's default (GATEWAY_MESSAGE_RETENTION), and the index the retention pass walks a
 * company's oldest messages by.
 */
export const messageRetention: Migration = {
  version: 24,
  name: 'message retention per company',
  sql: `
    ALTER TABLE companies ADD COLUMN message_retention_days INTEGER;
    CREATE INDEX messages_company_created ON messages(company_id, created_at);
  `,
};
