import type { Migration } from './migration.js';

/**
 * Secrets not kept where they need not be, and API tokens that can be listed and revoked.
 * - `idempotency_keys.withheld`: 1 when the first answer carried a secret (a webhook's signing
 *   secret, a portal link): its body is not stored, and a repeat is refused (docs/decisions.md).
 * - `api_tokens.prefix`: the token's first 12 characters (`gwk_` and 8 more), shown in lists in
 *   place of the token; null for tokens created before (only their digest was kept).
 * - `api_tokens.last_used_at`: the last authenticated request, written at most once a minute.
 * - `api_tokens.revoked_at`: set by a revocation; a revoked token authenticates nothing.
 */
export const secretsAndTokens: Migration = {
  version: 16,
  name: 'withheld idempotent answers; API token prefix, last use and revocation',
  sql: `
    ALTER TABLE idempotency_keys ADD COLUMN withheld INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE api_tokens ADD COLUMN prefix TEXT;
    ALTER TABLE api_tokens ADD COLUMN last_used_at INTEGER;
    ALTER TABLE api_tokens ADD COLUMN revoked_at INTEGER;
  `,
};
