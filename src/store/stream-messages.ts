import type { Db } from './db.js';

export interface StreamMessageRow {
  seq: number;
  stream: string;
  key: string;
  message_id: string;
  value: string;
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
  private readonly dueCount;
  private readonly claimOne;
  private readonly commitOne;
  private readonly prunable;
  private readonly releaseAll;

  constructor(private readonly db: Db) {
    this.insertOne = db.prepare<[string, string, string, string, number, number]>(
      'INSERT INTO stream_messages (stream, key, message_id, value, not_before, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    // Uncommitted messages of the stream for the group, oldest first, with their current claim.
    // Uncommitted messages of the stream for the group from `floor` on (every message below it is
    // committed by the group: the caller's cursor, so a poll does not walk the retained history).
    this.openRows = db.prepare<{ stream: string; group: string; floor: number; limit: number }, StreamMessageRow>(
      `SELECT m.seq, m.stream, m.key, m.message_id, m.value, m.not_before, c.claimed_until
       FROM stream_messages m
       LEFT JOIN stream_claims c ON c.group_name = @group AND c.seq = m.seq
       WHERE m.stream = @stream AND m.seq >= @floor AND c.committed_at IS NULL
       ORDER BY m.seq LIMIT @limit`,
    );
    this.dueCount = db.prepare<{ stream: string; group: string; floor: number; now: number }, { n: number }>(
      `SELECT count(*) AS n FROM stream_messages m
       LEFT JOIN stream_claims c ON c.group_name = @group AND c.seq = m.seq
       WHERE m.stream = @stream AND m.seq >= @floor AND c.committed_at IS NULL AND m.not_before <= @now`,
    );
    this.claimOne = db.prepare<[string, number, number]>(
      `INSERT INTO stream_claims (group_name, seq, claimed_until) VALUES (?, ?, ?)
       ON CONFLICT (group_name, seq) DO UPDATE SET claimed_until = excluded.claimed_until`,
    );
    this.commitOne = db.prepare<[number, string, number]>(
      'UPDATE stream_claims SET committed_at = ? WHERE group_name = ? AND seq = ?',
    );
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

  /**
   * Claims up to `limit` messages for the group: per key only the oldest uncommitted one, and only
   * when it is due and not claimed by a live lease (per-key order across consumers).
   */
  claim(stream: string, group: string, limit: number, now: number, leaseMs: number, cursor: StreamCursor = { floor: 0 }): StreamMessageRow[] {
    return this.db.transaction(() => {
      const seenKeys = new Set<string>();
      const claimed: StreamMessageRow[] = [];
      const open = this.openRows.all({ stream, group, floor: cursor.floor, limit: 2000 });
      // Everything below the oldest uncommitted message is committed; new messages get higher seqs.
      if (open.length > 0) cursor.floor = open[0]!.seq;
      for (const row of open) {
        if (claimed.length >= limit) break;
        if (seenKeys.has(row.key)) continue;
        seenKeys.add(row.key);
        if (row.claimed_until !== null && row.claimed_until > now) continue;
        if (row.not_before > now) continue;
        this.claimOne.run(group, row.seq, now + leaseMs);
        claimed.push(row);
      }
      return claimed;
    }).immediate();
  }

  /** Messages of the stream due and not committed by the group, from the cursor's floor on. */
  lag(stream: string, group: string, now: number, cursor: StreamCursor = { floor: 0 }): number {
    return this.dueCount.get({ stream, group, floor: cursor.floor, now })!.n;
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
