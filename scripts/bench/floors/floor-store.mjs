// The complete floor's store (scripts/bench/floors/floor-complete.mjs): the daemon's columns and the
// indexes the contract needs (conversations of a company, messages of a conversation in time order,
// a company's messages by age for its retention pass, deliveries of a company), nothing more; WAL,
// synchronous=NORMAL, as the daemon's store.
import Database from 'better-sqlite3';

/** Opens (or creates) the floor's store at `file`: answers its prepared statements and `recordDelivered`. */
export function openFloorStore(file) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS contacts (id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL, channel_id INTEGER NOT NULL,
      external_id TEXT NOT NULL, external_public_id TEXT NOT NULL, name TEXT NOT NULL, phone TEXT, avatar_url TEXT NOT NULL DEFAULT '',
      is_group INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, UNIQUE (channel_id, external_id));
    CREATE TABLE IF NOT EXISTS conversations (id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL, channel_id INTEGER NOT NULL,
      contact_id INTEGER NOT NULL, operational_state TEXT NOT NULL DEFAULT 'open', replied_state TEXT NOT NULL DEFAULT 'unreplied',
      assignee_id INTEGER, note TEXT, unread_count INTEGER NOT NULL DEFAULT 0, last_message_id INTEGER, created_at INTEGER NOT NULL,
      last_updated_at INTEGER NOT NULL, UNIQUE (channel_id, contact_id));
    CREATE INDEX IF NOT EXISTS conversations_company ON conversations(company_id, id);
    CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL, channel_id INTEGER NOT NULL,
      conversation_id INTEGER NOT NULL, contact_id INTEGER NOT NULL, external_id TEXT, replied_to_id TEXT, income INTEGER NOT NULL,
      status TEXT NOT NULL, text TEXT, details TEXT, created_at INTEGER NOT NULL, external_created_at INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS messages_conversation_time ON messages(conversation_id, external_created_at, id);
    CREATE UNIQUE INDEX IF NOT EXISTS messages_channel_external ON messages(channel_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX IF NOT EXISTS messages_company_created ON messages(company_id, created_at);
    CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY, key TEXT NOT NULL, message_id TEXT NOT NULL UNIQUE, payload TEXT NOT NULL,
      created_at INTEGER NOT NULL, published_at INTEGER);
    CREATE TABLE IF NOT EXISTS deliveries (id INTEGER PRIMARY KEY, event_id TEXT NOT NULL, company_id INTEGER NOT NULL, endpoint INTEGER NOT NULL,
      status TEXT NOT NULL, attempt_count INTEGER NOT NULL, last_status_code INTEGER, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS deliveries_company ON deliveries(company_id, id);
    CREATE TABLE IF NOT EXISTS attempts (id INTEGER PRIMARY KEY, delivery_id INTEGER NOT NULL, number INTEGER NOT NULL, trigger TEXT NOT NULL,
      started_at INTEGER NOT NULL, duration_ms INTEGER NOT NULL, status_code INTEGER, response_body TEXT, outcome TEXT NOT NULL);
  `);
  const sql = {
    messageByExternalId: db.prepare('SELECT id FROM messages WHERE channel_id = ? AND external_id = ?').pluck(),
    contact: db.prepare(
      'SELECT id, name, external_public_id, phone, avatar_url, is_group FROM contacts WHERE channel_id = ? AND external_id = ?',
    ),
    insertContact: db.prepare(
      'INSERT INTO contacts (company_id, channel_id, external_id, external_public_id, name, phone, is_group, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    refreshContact: db.prepare('UPDATE contacts SET name = ?, external_public_id = ?, updated_at = ? WHERE id = ?'),
    conversation: db.prepare(
      'SELECT id, operational_state, replied_state, assignee_id, note, unread_count, created_at FROM conversations WHERE channel_id = ? AND contact_id = ?',
    ),
    insertConversation: db.prepare(
      'INSERT INTO conversations (company_id, channel_id, contact_id, created_at, last_updated_at) VALUES (?, ?, ?, ?, ?)',
    ),
    moveConversation: db.prepare(
      "UPDATE conversations SET replied_state = 'unreplied', operational_state = 'open', unread_count = unread_count + 1, last_message_id = ?, last_updated_at = ? WHERE id = ?",
    ),
    insertMessage: db.prepare(
      "INSERT INTO messages (company_id, channel_id, conversation_id, contact_id, external_id, replied_to_id, income, status, text, created_at, external_created_at) VALUES (?, ?, ?, ?, ?, ?, 1, 'created', ?, ?, ?)",
    ),
    insertEvent: db.prepare('INSERT INTO outbox (key, message_id, payload, created_at) VALUES (?, ?, ?, ?)'),
    insertDelivery: db.prepare(
      "INSERT INTO deliveries (event_id, company_id, endpoint, status, attempt_count, last_status_code, created_at, updated_at) VALUES (?, ?, ?, 'delivered', 1, ?, ?, ?)",
    ),
    insertAttempt: db.prepare(
      "INSERT INTO attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, response_body, outcome) VALUES (?, 1, 'auto', ?, ?, ?, ?, 'delivered')",
    ),
    markPublished: db.prepare('UPDATE outbox SET published_at = ? WHERE message_id = ?'),
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
  };
  /** An attempt answered 2xx, in the open transaction: its delivery row, its attempt row, the event marked published. */
  sql.recordDelivered = (eventId, companyId, endpoint, statusCode, startedAt, durationMs, answer, now) => {
    const delivery = Number(sql.insertDelivery.run(eventId, companyId, endpoint, statusCode, now, now).lastInsertRowid);
    sql.insertAttempt.run(delivery, startedAt, durationMs, statusCode, answer);
    sql.markPublished.run(now, eventId);
  };
  return sql;
}
