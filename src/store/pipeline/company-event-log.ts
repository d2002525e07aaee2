import type { Db } from '../engine/db.js';

/** One kept event of a company: its outbox row id (the read cursor) and the row's JSON. */
export interface KeptEvent {
  row: number;
  message_id: string;
  payload: string;
}

/**
 * Reads a company's events from the outbox rows kept for the retention (src/outbox/janitor.ts),
 * in row order: the log the live stream (src/api/v2/event-stream.ts) reads and resumes from.
 */
export class CompanyEventLog {
  private readonly after;
  private readonly byMessage;
  private readonly newest;

  constructor(db: Db) {
    this.after = db.prepare<[string, number, number], KeptEvent>(
      "SELECT id AS row, message_id, payload FROM outbox WHERE stream = 'gateway.events' AND key = ? AND id > ? ORDER BY id LIMIT ?",
    );
    this.byMessage = db.prepare<[string, string], { row: number }>(
      "SELECT id AS row FROM outbox WHERE message_id = ? AND stream = 'gateway.events' AND key = ?",
    );
    this.newest = db.prepare<[], { row: number | null }>('SELECT max(id) AS row FROM outbox');
  }

  /** Up to `limit` of the company's events after row `row`, oldest first. */
  eventsAfter(companyId: number, row: number, limit: number): KeptEvent[] {
    return this.after.all(String(companyId), row, limit);
  }

  /** The row of the company's event `eventId`, or undefined when it is not (or no longer) kept. */
  rowOf(companyId: number, eventId: string): number | undefined {
    return this.byMessage.get(eventId, String(companyId))?.row;
  }

  /** The newest row of the log: a stream without Last-Event-ID starts after it. */
  newestRow(): number {
    return this.newest.get()?.row ?? 0;
  }
}
