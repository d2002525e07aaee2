import type { Db } from './db.js';
import { GroupCommit } from './group-commit.js';

export interface StreamMessageRow {
  seq: number;
  stream: string;
  key: string;
  message_id: string;
  value: string;
  not_before: number;
  claimed_until: number | null;
}

/** Uncommitted messages one claim looks at, from the floor on. */
const SCAN_ROWS = 512;

/** What a claim scan reads of each uncommitted message (the value only for those it claims). */
interface OpenRow {
  seq: number;
  key: string;
  not_before: number;
  claimed_until: number | null;
}

/**
 * A consumer's position in a stream: every message below `floor` is committed by its group. Moved
 * forward by claim(); starts at 0 (a first claim walks the retained history once).
 */
export interface StreamCursor {
  floor: number;
}

export interface NewStreamMessage {
  key: string;
  messageId: string;
  value: string;
  notBefore: number;
}

/**
 * The embedded streams: an append-only log per stream plus per-group claims. A claim is a lease:
 * a consumer that dies without committing loses it when the lease ends, and the message is
 * handed out again.
 */
export class StreamMessageStore {
  private readonly insertOne;
  private readonly openRows;
  private readonly openRowsExcept;
  private readonly valueOf;
  private readonly dueCount;
  private readonly claimOne;
  private readonly commitOne;
  private readonly prunable;
  private readonly releaseAll;
  private readonly releaseOne;

  /** Appends and commits of one turn of the event loop share a transaction (one WAL commit). */
  private readonly group: GroupCommit;

  constructor(private readonly db: Db) {
    this.group = new GroupCommit(db, 1024);
    this.insertOne = db.prepare<[string, string, string, string, number, number]>(
      'INSERT INTO stream_messages (stream, key, message_id, value, not_before, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    // Uncommitted messages of the stream for the group, oldest first, with their current claim.
    // Uncommitted messages of the stream for the group from `floor` on (every message below it is
    // committed by the group: the caller's cursor, so a poll does not walk the retained history).
    // Values are read only for the rows claimed (valueOf): a scan passes over many held ones.
    this.openRows = db.prepare<{ stream: string; group: string; floor: number; limit: number }, OpenRow>(
      `SELECT m.seq, m.key, m.not_before, c.claimed_until
       FROM stream_messages m
       LEFT JOIN stream_claims c ON c.group_name = @group AND c.seq = m.seq
       WHERE m.stream = @stream AND m.seq >= @floor AND c.committed_at IS NULL
       ORDER BY m.seq LIMIT @limit`,
    );
    // The same past the first page, leaving out the keys already stopped (JSON array): a key with a
    // long backlog (a hanging endpoint's) is passed over instead of filling every page.
    this.openRowsExcept = db.prepare<{ stream: string; group: string; floor: number; limit: number; stopped: string }, OpenRow>(
      `SELECT m.seq, m.key, m.not_before, c.claimed_until
       FROM stream_messages m
       LEFT JOIN stream_claims c ON c.group_name = @group AND c.seq = m.seq
       WHERE m.stream = @stream AND m.seq >= @floor AND c.committed_at IS NULL
         AND m.key NOT IN (SELECT value FROM json_each(@stopped))
       ORDER BY m.seq LIMIT @limit`,
    );
    this.dueCount = db.prepare<{ stream: string; group: string; floor: number; now: number }, { n: number }>(
      `SELECT count(*) AS n FROM stream_messages m
       LEFT JOIN stream_claims c ON c.group_name = @group AND c.seq = m.seq
       WHERE m.stream = @stream AND m.seq >= @floor AND c.committed_at IS NULL AND m.not_before <= @now`,
    );
    this.valueOf = db.prepare<[number], { message_id: string; value: string }>('SELECT message_id, value FROM stream_messages WHERE seq = ?');
    this.claimOne = db.prepare<[string, number, number]>(
      `INSERT INTO stream_claims (group_name, seq, claimed_until) VALUES (?, ?, ?)
       ON CONFLICT (group_name, seq) DO UPDATE SET claimed_until = excluded.claimed_until`,
    );
    this.commitOne = db.prepare<[number, string, number]>(
      'UPDATE stream_claims SET committed_at = ? WHERE group_name = ? AND seq = ?',
    );
    this.releaseOne = db.prepare<[string, number]>('UPDATE stream_claims SET claimed_until = 0 WHERE group_name = ? AND seq = ? AND committed_at IS NULL');
    this.releaseAll = db.prepare('UPDATE stream_claims SET claimed_until = 0 WHERE committed_at IS NULL AND claimed_until > 0');
    // The newest message is never pruned: seq (a rowid) then never goes back, which consumers'
    // floors rely on (a rowid table reuses numbers only above its current maximum).
    this.prunable = db.prepare<[number]>(
      `DELETE FROM stream_messages WHERE created_at < ? AND seq IN (SELECT seq FROM stream_claims WHERE committed_at IS NOT NULL)
         AND seq NOT IN (SELECT seq FROM stream_claims WHERE committed_at IS NULL)
         AND seq < (SELECT max(seq) FROM stream_messages)`,
    );
  }

  append(stream: string, messages: readonly NewStreamMessage[], now: number): void {
    this.db.transaction(() => {
      for (const m of messages) this.insertOne.run(stream, m.key, m.messageId, m.value, m.notBefore, now);
    })();
  }

  /** append() in the transaction shared by this turn's appends and commits; resolves once committed. */
  appendGrouped(stream: string, messages: readonly NewStreamMessage[], now: number): Promise<void> {
    return this.group.run(() => this.append(stream, messages, now));
  }

  /** claim() in the transaction shared by this turn's claims, appends and commits; resolves once committed. */
  claimGrouped(...args: Parameters<StreamMessageStore['claim']>): Promise<StreamMessageRow[]> {
    return this.group.run(() => this.claim(...args));
  }

  /** commit() in the transaction shared by this turn's appends and commits; resolves once committed. */
  commitGrouped(group: string, seq: number, now: number): Promise<void> {
    return this.group.run(() => this.commit(group, seq, now));
  }

  /**
   * Claims up to `limit` messages for the group, in seq order. Per key: the oldest uncommitted
   * messages, consecutive, up to `options.perKey` of them (default 1), each due and not claimed by a
   * live lease; the first one that is not stops its key (per-key order across consumers). Keys
   * `options.held` says the caller still holds are skipped: their messages are with it already. At
   * most `options.maxKeys` keys (default: no bound), so that consumers of a group share the keys.
   */
  claim(
    stream: string,
    group: string,
    limit: number,
    now: number,
    leaseMs: number,
    cursor: StreamCursor = { floor: 0 },
    options: { perKey?: number; held?: (key: string) => boolean; maxKeys?: number } = {},
  ): StreamMessageRow[] {
    const perKey = options.perKey ?? 1;
    let keysLeft = options.maxKeys ?? Number.POSITIVE_INFINITY;
    return this.db.transaction(() => {
      /** Per key: how many were taken, or -1 once the key is stopped. */
      const taken = new Map<string, number>();
      const claimed: StreamMessageRow[] = [];
      let open = this.openRows.all({ stream, group, floor: cursor.floor, limit: SCAN_ROWS });
      // Everything below the oldest uncommitted message is committed; new messages get higher seqs.
      if (open.length > 0) cursor.floor = open[0]!.seq;
      // Page by page until enough are claimed or the stream ends. Each later page leaves out the
      // keys already stopped, and a key is stopped after at most perKey + 1 of its rows, so every
      // page makes progress and one key's backlog never hides the keys behind it.
      for (;;) {
        for (const row of open) {
          if (claimed.length >= limit) break;
          let count = taken.get(row.key);
          if (count === undefined) count = options.held?.(row.key) || keysLeft <= 0 ? -1 : 0;
          if (count < 0) {
            taken.set(row.key, -1);
            continue;
          }
          if (count >= perKey || (row.claimed_until !== null && row.claimed_until > now) || row.not_before > now) {
            taken.set(row.key, -1);
            continue;
          }
          if (count === 0) keysLeft -= 1;
          taken.set(row.key, count + 1);
          this.claimOne.run(group, row.seq, now + leaseMs);
          const { message_id, value } = this.valueOf.get(row.seq)!;
          claimed.push({ seq: row.seq, stream, key: row.key, message_id, value, not_before: row.not_before, claimed_until: row.claimed_until });
        }
        if (claimed.length >= limit || keysLeft <= 0 || open.length < SCAN_ROWS) break;
        const stopped = [...taken].filter(([, count]) => count < 0).map(([key]) => key);
        open = this.openRowsExcept.all({ stream, group, floor: open.at(-1)!.seq + 1, limit: SCAN_ROWS, stopped: JSON.stringify(stopped) });
      }
      return claimed;
    }).immediate();
  }

  /** Messages of the stream due and not committed by the group, from the cursor's floor on. */
  lag(stream: string, group: string, now: number, cursor: StreamCursor = { floor: 0 }): number {
    return this.dueCount.get({ stream, group, floor: cursor.floor, now })!.n;
  }

  /** Ends the leases of claimed, uncommitted messages (a consumer that stopped gracefully gives them back). */
  release(group: string, seqs: readonly number[]): void {
    if (seqs.length === 0) return;
    this.db.transaction(() => {
      for (const seq of seqs) this.releaseOne.run(group, seq);
    })();
  }

  /** Ends every live lease: called at start, when the claims can only be a dead process's. */
  releaseClaims(): number {
    return this.releaseAll.run().changes;
  }

  commit(group: string, seq: number, now: number): void {
    this.commitOne.run(now, group, seq);
  }

  /** Deletes messages committed by every group that claimed them, older than `before`. */
  prune(before: number): number {
    return this.prunable.run(before).changes;
  }
}
