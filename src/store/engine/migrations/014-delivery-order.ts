import type { Migration } from './migration.js';

/**
 * Delivery options of an endpoint and held deliveries (docs/decisions.md, "Delivery order, rate
 * limits, held deliveries"): strict ordering per endpoint, a rate limit per endpoint, and
 * deliveries held while their endpoint is disabled or, for a strictly ordered endpoint, until the
 * deliveries before them ended. A held delivery stays `pending` with `held_reason` set and no
 * `next_attempt_at`, so the retry schedule's index never sees it.
 */
export const deliveryOrder: Migration = {
  version: 14,
  name: 'strict ordering and rate limit per endpoint; held deliveries',
  sql: `
    ALTER TABLE webhook_endpoints ADD COLUMN ordering TEXT NOT NULL DEFAULT 'default' CHECK (ordering IN ('default', 'strict'));
    -- Deliveries per second, or NULL for no limit.
    ALTER TABLE webhook_endpoints ADD COLUMN rate_limit INTEGER CHECK (rate_limit IS NULL OR rate_limit >= 1);
    -- Strict ordering: the delivery of the endpoint let out last; the ones after it are held until
    -- it is delivered or failed.
    ALTER TABLE webhook_endpoints ADD COLUMN head_delivery_id TEXT;

    -- Why a pending delivery is held: 'endpoint_disabled' or 'ordering'; NULL when it is not.
    ALTER TABLE webhook_deliveries ADD COLUMN held_reason TEXT;
    -- Held deliveries per endpoint in creation order: what a release walks. Rows that are not held
    -- (every delivery of an endpoint without these options) never enter it.
    CREATE INDEX webhook_deliveries_held ON webhook_deliveries(endpoint_id, seq)
      WHERE status = 'pending' AND held_reason IS NOT NULL;
  `,
};
