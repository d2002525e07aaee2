import type { Migration } from './migration.js';

export const foundation: Migration = {
  version: 1,
  name: 'accounts, tokens, companies, channels',
  sql: `
      CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE api_tokens (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        token_sha256 TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE companies (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        phone TEXT,
        description TEXT,
        webhook_url TEXT,
        hidden INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX companies_account ON companies(account_id, id);
      CREATE TABLE channels (
        id INTEGER PRIMARY KEY,
        company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        provider TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('unconfirmed', 'enabled', 'disabled')),
        settings TEXT NOT NULL DEFAULT '{}',
        credentials TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        deleted_at INTEGER
      );
      CREATE INDEX channels_company ON channels(company_id, id);
      -- One live channel per provider per company; a deleted one frees the slot.
      CREATE UNIQUE INDEX channels_one_per_provider ON channels(company_id, provider) WHERE deleted_at IS NULL;
    `,
};
