import type { Migration } from './migration.js';

/**
 * Provider callbacks (docs/design.md section 5): the per-channel callback settings (verification secrets
 * and which API created the channel, which decides whether v1 channel payloads are written), the
 * receipts that make repeated callbacks harmless, and what an attachment described by a provider
 * (not uploaded) needs.
 */
export const callbacks: Migration = {
  version: 4,
  name: 'channel callback secrets, callback receipts, provider media on attachments',
  sql: `
    -- Kept apart from channels so that no channel read (and no presenter) ever sees a secret.
    CREATE TABLE channel_callbacks (
      channel_id INTEGER PRIMARY KEY REFERENCES channels(id) ON DELETE CASCADE,
      api TEXT NOT NULL DEFAULT 'v2' CHECK (api IN ('v1', 'v2')),  -- the API that created the channel
      signing_secret TEXT NOT NULL,         -- hex of 32 random bytes; each family presents it in its own form
      verify_token TEXT NOT NULL,           -- hex of 16 random bytes: the cloud-style subscribe handshake
      created_at INTEGER NOT NULL
    );
    -- Channels created before this migration get their secrets here; their API is unknown and
    -- counted as v2 (they keep receiving the v2 auth events only).
    INSERT INTO channel_callbacks (channel_id, api, signing_secret, verify_token, created_at)
      SELECT id, 'v2', lower(hex(randomblob(32))), lower(hex(randomblob(16))), CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM channels;

    -- One row per provider delivery already applied (a bot-style update_id, a connector webhook-id,
    -- a reaction or edit id): a repeated one answers 200 and changes nothing. Messages are
    -- deduplicated by their own unique index (messages_channel_external).
    CREATE TABLE callback_receipts (
      channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      key TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (channel_id, key)
    ) WITHOUT ROWID;

    -- 'upload' (bytes under the data dir) or 'provider' (described by a callback, not downloaded yet).
    ALTER TABLE attachments ADD COLUMN origin TEXT NOT NULL DEFAULT 'upload' CHECK (origin IN ('upload', 'provider'));
    -- What the provider gave to fetch the media later (JSON: {id, url, sha256, ...}); null for uploads.
    ALTER TABLE attachments ADD COLUMN provider_media TEXT;
  `,
};
