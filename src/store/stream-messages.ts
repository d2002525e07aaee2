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
  private readonly claimOne;
  private readonly commitOne;
  private readonly prunable;
  private readonly releaseAll;

  constructor(private readonly db: Db) {
    this.insertOne = db.prepare<[string, string, string, string, number, number]>(
      'INSERT INTO stream_messages (stream, key, message_id, value, not_before, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    // Uncommitted messages of the stream for the group, oldest first, with their current claim.
    this.openRows = db.prepare<{ stream: string; group: string; limit: number }, StreamMessageRow>(
      `SELECT m.seq, m.stream, m.key, m.message_id, m.value, m.not_before, c.claimed_until
       FROM stream_messages m
       LEFT JOIN stream_claims c ON c.group_name = @group AND c.seq = m.seq
       WHERE m.stream = @stream AND c.committed_at IS NULL
       ORDER BY m.seq LIMIT @limit`,
    );
    this.claimOne = db.prepare<[string, number, number]>(
      `INSERT INTO stream_claims (group_name, seq, claimed_until) VALUES (?, ?, ?)
       ON CONFLICT (group_name, seq) DO UPDATE SET claimed_until = excluded.claimed_until`,
    );
    this.commitOne = db.prepare<[number, string, number]>(
      'UPDATE stream_claims SET committed_at = ? WHERE group_name = ? AND seq = ?',
    );
    this.releaseAll = db.prepare('UPDATE stream_claims SET claimed_until = 0 WHERE committed_at IS NULL AND claimed_until > 0');
    this.prunable = db.prepare<[number]>(
      `DELETE FROM stream_messages WHERE created_at < ? AND seq IN (SELECT seq FROM stream_claims WHERE committed_at IS NOT NULL)
         AND seq NOT IN (SELECT seq FROM stream_claims WHERE committed_at IS NULL)`,
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
  claim(stream: string, group: string, limit: number, now: number, leaseMs: number): StreamMessageRow[] {
    return this.db.transaction(() => {
      const seenKeys = new Set<string>();
      const claimed: StreamMessageRow[] = [];
      for (const row of this.openRows.all({ stream, group, limit: 2000 })) {
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
