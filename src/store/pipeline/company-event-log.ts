import type { Db } from '../engine/db.js';
import { pruneStep, type PruneStep } from '../engine/prune.js';

/** One event of a company's log: its seq (the read cursor), its id and name, and its v2 envelope as JSON. */
export interface KeptEvent {
  seq: number;
  event_id: string;
  name: string;
  envelope: string;
}

/** What the outbox writes to the log for an event it appends (see NewOutboxMessage.logged). */
export interface LoggedEvent {
  companyId: number;
  name: string;
  envelope: string;
}

/**
 * The company event log (table company_events): every v2 event, written in the transaction of the
 * change it reports, in commit order, kept for the retention (src/outbox/janitor.ts). The live
 * stream (src/http/live-events.ts) reads it and resumes from it.
 */
export class CompanyEventLog {
  private readonly insertOne;
  private readonly after;
  private readonly byEvent;
  private readonly newest;
  private readonly nextRows;
  private readonly deleteRange;

  constructor(db: Db) {
    this.insertOne = db.prepare<[number, string, string, string, number]>(
      'INSERT INTO company_events (company_id, event_id, name, envelope, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.after = db.prepare<[number, number, number], KeptEvent>(
      'SELECT seq, event_id, name, envelope FROM company_events WHERE company_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.byEvent = db.prepare<[string, number], { seq: number }>(
      'SELECT seq FROM company_events WHERE event_id = ? AND company_id = ?',
    );
    this.newest = db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM company_events');
    this.nextRows = db.prepare<[number, number], { key: number; created_at: number }>(
      'SELECT seq AS key, created_at FROM company_events WHERE seq > ? ORDER BY seq LIMIT ?',
    );
    this.deleteRange = db.prepare<[number, number]>('DELETE FROM company_events WHERE seq > ? AND seq <= ?');
  }

  /** Writes the event in the transaction open on this connection (the change's own). */
  appendHere(eventId: string, event: LoggedEvent, now: number): void {
    this.insertOne.run(event.companyId, eventId, event.name, event.envelope, now);
  }

  /** Up to `limit` of the company's events after seq `seq`, oldest first. */
  eventsAfter(companyId: number, seq: number, limit: number): KeptEvent[] {
    return this.after.all(companyId, seq, limit);
  }

  /** The seq of the company's event `eventId`, or undefined when it is not (or no longer) kept. */
  seqOf(companyId: number, eventId: string): number | undefined {
    return this.byEvent.get(eventId, companyId)?.seq;
  }

  /** The newest seq of the log: a stream without Last-Event-ID starts after it. */
  newestSeq(): number {
    return this.newest.get()?.seq ?? 0;
  }

  /**
   * Deletes the events created before `before` among the `limit` after seq `after`, up to the first
   * created since (seqs follow creation time). Answers the last seq looked at and how many went.
   */
  prune(before: number, after: number, limit: number): PruneStep {
    return pruneStep(
      this.nextRows.all(after, limit),
      before,
      after,
      (from, upto) => this.deleteRange.run(from, upto).changes,
    );
  }
}
