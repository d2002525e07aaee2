import type { Migration } from './migration.js';

/**
 * The company event log the live stream reads and resumes from (docs/api.md, "Live event stream"):
 * every v2 event, written in the transaction of the change it reports, kept for the retention
 * (src/outbox/janitor.ts), for the companies watched by a stream within the retention
 * (company_event_watch: until when). The outbox is no such log: the events of a group commit are published
 * from memory and never become outbox rows. Seqs only go up (AUTOINCREMENT): a stream's cursor
 * stays valid across prunes.
 */
export const companyEvents: Migration = {
  version: 21,
  name: 'company event log of the live event stream',
  sql: `
    CREATE TABLE company_events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      company_id INTEGER NOT NULL,
      event_id TEXT NOT NULL,
      name TEXT NOT NULL,                   -- <type>.<event>, the SSE event name
      envelope TEXT NOT NULL,               -- the v2 envelope {id, event, type, created_at, object} as JSON
      created_at INTEGER NOT NULL
    );
    CREATE INDEX company_events_company ON company_events(company_id, seq);
    CREATE INDEX company_events_event ON company_events(event_id);
    CREATE TABLE company_event_watch (
      company_id INTEGER PRIMARY KEY,
      until INTEGER NOT NULL                -- ms: the company's events are logged until then
    ) WITHOUT ROWID;
  `,
};
