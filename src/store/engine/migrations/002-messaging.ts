import type { Migration } from './migration.js';

/**
 * The messaging model (contacts, conversations, messages, attachments, templates), the
 * transactional outbox and the companies' webhook endpoints.
 */
export const messaging: Migration = {
  version: 2,
  name: 'contacts, conversations, messages, attachments, templates, outbox, webhook endpoints',
  sql: `
    -- A person (or group) at a provider, as seen through one channel.
    CREATE TABLE contacts (
      id INTEGER PRIMARY KEY,
      company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      external_id TEXT NOT NULL,            -- the provider's id of the sender (phone, chat id, user id)
      external_public_id TEXT NOT NULL,     -- what a human recognises: phone, nickname, page name
      name TEXT NOT NULL DEFAULT '',
      phone TEXT,
      avatar_url TEXT NOT NULL DEFAULT '',
      is_group INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (channel_id, external_id)
    );

    -- One conversation per contact and channel.
    CREATE TABLE conversations (
      id INTEGER PRIMARY KEY,
      company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
      operational_state TEXT NOT NULL DEFAULT 'open' CHECK (operational_state IN ('open', 'archived')),
      replied_state TEXT NOT NULL DEFAULT 'unreplied' CHECK (replied_state IN ('replied', 'unreplied')),
      assignee_id INTEGER,
      last_message_id INTEGER,
      created_at INTEGER NOT NULL,
      last_updated_at INTEGER NOT NULL,
      UNIQUE (channel_id, contact_id)
    );
    CREATE INDEX conversations_company ON conversations(company_id, id);
    CREATE INDEX conversations_company_state ON conversations(company_id, operational_state, id);

    CREATE TABLE messages (
      id INTEGER PRIMARY KEY,
      company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
      external_id TEXT,                     -- the provider's message id; null until the provider answers
      replied_to_id TEXT,                   -- external id of the message replied to
      income INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('created', 'sent', 'delivered', 'read', 'error')),
      text TEXT,
      reactions TEXT NOT NULL DEFAULT '[]',
      details TEXT,                         -- JSON or null (an error reason, a template, a location)
      delivery INTEGER NOT NULL DEFAULT 0,
      deleted INTEGER NOT NULL DEFAULT 0,
      send_to_crm INTEGER NOT NULL DEFAULT 1,
      created_at INTEGER NOT NULL,
      external_created_at INTEGER NOT NULL
    );
    CREATE INDEX messages_conversation_time ON messages(conversation_id, external_created_at, id);
    -- Deduplication of provider callbacks: one message per provider id per channel.
    CREATE UNIQUE INDEX messages_channel_external ON messages(channel_id, external_id) WHERE external_id IS NOT NULL;

    CREATE TABLE attachments (
      id INTEGER PRIMARY KEY,
      company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      message_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,
      storage_key TEXT NOT NULL UNIQUE,     -- random: the unguessable part of attachment_url
      file_name TEXT NOT NULL,
      mime_type TEXT NOT NULL,
      size INTEGER NOT NULL,
      width INTEGER,
      height INTEGER,
      push_to_talk INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX attachments_message ON attachments(message_id);

    -- Business message templates, synchronised from the provider.
    CREATE TABLE templates (
      id INTEGER PRIMARY KEY,
      company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      channel_id INTEGER REFERENCES channels(id) ON DELETE SET NULL,
      name TEXT NOT NULL,
      body TEXT NOT NULL,
      biz_template_id TEXT NOT NULL,
      language TEXT,
      substitutions_count INTEGER NOT NULL DEFAULT 0,
      header_content_type TEXT,
      header TEXT,
      namespace TEXT,
      position INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      UNIQUE (company_id, biz_template_id)
    );

    -- Transactional outbox: written in the same transaction as the change it reports, published
    -- to its stream by the relay, marked published only after the stream acknowledged it.
    CREATE TABLE outbox (
      id INTEGER PRIMARY KEY,
      stream TEXT NOT NULL,                 -- 'gateway.events' | 'gateway.outbound'
      key TEXT NOT NULL,                    -- partition key: company id for events, channel id for outbound
      message_id TEXT NOT NULL UNIQUE,      -- stable id (the event id): duplicates are recognisable downstream
      payload TEXT NOT NULL,                -- JSON
      created_at INTEGER NOT NULL,
      published_at INTEGER
    );
    CREATE INDEX outbox_pending ON outbox(id) WHERE published_at IS NULL;

    -- Where a company's events go. The v1 company webhook_url is mirrored here as the endpoint
    -- with source 'company' (at most one per company), so it is signed and retried like the others.
    CREATE TABLE webhook_endpoints (
      id INTEGER PRIMARY KEY,
      company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
      source TEXT NOT NULL CHECK (source IN ('company', 'api')),
      url TEXT NOT NULL,
      secret TEXT NOT NULL,                 -- whsec_<base64>
      previous_secret TEXT,                 -- still signs until previous_secret_expires_at (rotation)
      previous_secret_expires_at INTEGER,
      event_types TEXT,                     -- JSON array of 'type.event' names; null means every event
      active INTEGER NOT NULL DEFAULT 1,
      disabled_reason TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX webhook_endpoints_company ON webhook_endpoints(company_id, id);
    CREATE UNIQUE INDEX webhook_endpoints_company_source ON webhook_endpoints(company_id) WHERE source = 'company';
  `,
};
