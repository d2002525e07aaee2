import type { Migration } from './migration.js';

/**
 * Embedded streams without claim rows (docs/decisions.md, "Embedded streams"): the process owning
 * the store hands messages to its consumers from memory and deletes a message once its consumer
 * group committed it, so the table holds exactly the messages not done yet. Numbering never goes
 * back (AUTOINCREMENT): a consumer's "loaded through seq N" stays true while the process lives.
 * Messages already committed under the old scheme are dropped; the rest keep their seq.
 */
export const streamLog: Migration = {
  version: 7,
  name: 'embedded streams: a log of uncommitted messages, no claims',
  sql: `
    CREATE TABLE stream_log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      stream TEXT NOT NULL,
      key TEXT NOT NULL,
      message_id TEXT NOT NULL,             -- stable id: a redelivery or a duplicate publish carries the same
      value TEXT NOT NULL,
      not_before INTEGER NOT NULL,          -- not handed to a consumer before this time
      created_at INTEGER NOT NULL
    );
    INSERT INTO sqlite_sequence (name, seq) VALUES ('stream_log', (SELECT coalesce(max(seq), 0) FROM stream_messages));
    INSERT INTO stream_log (seq, stream, key, message_id, value, not_before, created_at)
      SELECT m.seq, m.stream, m.key, m.message_id, m.value, m.not_before, m.created_at
      FROM stream_messages m
      WHERE NOT EXISTS (SELECT 1 FROM stream_claims c WHERE c.seq = m.seq AND c.committed_at IS NOT NULL)
      ORDER BY m.seq;
    DROP TABLE stream_claims;
    DROP TABLE stream_messages;
    ALTER TABLE stream_log RENAME TO stream_messages;
    CREATE INDEX stream_messages_stream ON stream_messages(stream, seq);
    -- A key whose backlog did not fit in memory is read again by key (src/streams/sqlite/sqlite-stream.ts).
    CREATE INDEX stream_messages_key ON stream_messages(stream, key, seq);
  `,
};
