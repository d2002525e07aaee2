import type { Migration } from './migration.js';

/**
 * The participants of group conversations: the contacts (people of the same channel) that wrote in
 * the group, each once, in the order they first wrote.
 */
export const conversationParticipants: Migration = {
  version: 22,
  name: 'conversation participants',
  sql: `
    CREATE TABLE conversation_participants (
      conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (conversation_id, contact_id)
    ) WITHOUT ROWID;
    CREATE INDEX conversation_participants_contact ON conversation_participants(contact_id);
  `,
};
