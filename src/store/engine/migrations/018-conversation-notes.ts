import type { Migration } from './migration.js';

/** A conversation's note (v1 PUT .../conversations/<id>/note): its text, NULL without one. */
export const conversationNotes: Migration = {
  version: 18,
  name: 'conversation notes',
  sql: `
    ALTER TABLE conversations ADD COLUMN note TEXT;
  `,
};
