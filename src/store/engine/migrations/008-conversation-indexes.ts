import type { Migration } from './migration.js';

/**
 * conversations_company (company_id, id) served no query conversations_company_state (company_id,
 * operational_state, id) does not serve as well: the company's lists and counts filter by company
 * (and state) and sort by last_updated_at either way, and the company's rows are a prefix of the
 * state index (the ON DELETE CASCADE of a company finds them there too). Each new conversation
 * wrote an entry into both, in B-trees ordered by company, so a page per company per commit:
 * about one WAL page per callback of a new sender.
 */
export const conversationIndexes: Migration = {
  version: 8,
  name: 'conversations: the company index the state index covers dropped',
  sql: `
    DROP INDEX conversations_company;
  `,
};
