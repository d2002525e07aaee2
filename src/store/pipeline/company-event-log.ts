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

/** How long the company event log keeps an event: a live stream may resume from any event this recent. */
export const EVENT_LOG_RETENTION_MS = 86_400_000;

/**
 * The company event log (table company_events): the v2 events of the companies a live stream
 * watches, written in the transaction of the change they report, in commit order, kept for the
 * retention (src/outbox/janitor.ts). The live stream (src/http/live-events.ts) reads it and resumes
 * from it. A company is watched from its first stream on until a retention after its last one, so
 * every event a reconnecting stream can ask for is kept, and a company nobody streams costs no
 * write at all.
 */
export class CompanyEventLog {
  private readonly insertOne;
  private readonly after;
  private readonly byEvent;
  private readonly newest;
  private readonly nextRows;
  private readonly deleteRange;
  private readonly saveWatch;
  private readonly forgetWatches;
  /** Company id → until when (ms) its events are logged; read at start, kept here since. */
  private readonly watchedUntil = new Map<number, number>();

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
    this.saveWatch = db.prepare<[number, number]>(
      'INSERT INTO company_event_watch (company_id, until) VALUES (?, ?) ON CONFLICT (company_id) DO UPDATE SET until = excluded.until',
    );
    this.forgetWatches = db.prepare<[number]>('DELETE FROM company_event_watch WHERE until <= ?');
    const watches = db.prepare<[], { company_id: number; until: number }>(
      'SELECT company_id, until FROM company_event_watch',
    );
    for (const { company_id: companyId, until } of watches.all()) this.watchedUntil.set(companyId, until);
  }

  /**
   * A stream of the company is open at `now`: its events are logged until a retention later. Saved
   * at most once a minute per company (a restart finds it), as streams call it on every heartbeat.
   */
  watch(companyId: number, now: number): void {
    const until = now + EVENT_LOG_RETENTION_MS;
    if ((this.watchedUntil.get(companyId) ?? 0) > until - 60_000) return;
    this.saveWatch.run(companyId, until);
    this.watchedUntil.set(companyId, until);
  }

  /** Writes the event in the transaction open on this connection (the change's own), if watched. */
  appendHere(eventId: string, event: LoggedEvent, now: number): void {
    if ((this.watchedUntil.get(event.companyId) ?? 0) <= now) return;
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
    this.forgetExpiredWatches(Date.now());
    return pruneStep(
      this.nextRows.all(after, limit),
      before,
      after,
      (from, upto) => this.deleteRange.run(from, upto).changes,
    );
  }

  private forgetExpiredWatches(now: number): void {
    for (const [companyId, until] of this.watchedUntil) if (until <= now) this.watchedUntil.delete(companyId);
    this.forgetWatches.run(now);
  }
}
