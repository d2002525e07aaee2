import type { Migration } from './migration.js';

/** A conversation's unread count: incoming messages since the company last marked it read (POST .../read). */
export const unreadCounts: Migration = {
  version: 23,
  name: 'unread counts',
  sql: `
    ALTER TABLE conversations ADD COLUMN unread_count INTEGER NOT NULL DEFAULT 0;
  `,
};
