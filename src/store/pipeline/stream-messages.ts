import type { Db } from '../engine/db.js';
import type { GroupCommit } from '../engine/group-commit.js';

export interface StreamMessageRow {
  seq: number;
  stream: string;
  key: string;
  message_id: string;
  value: string;
  not_before: number;
  /** The trace context of its publish (docs/tracing.md); null while tracing is off. */
  traceparent: string | null;
}

export interface NewStreamMessage {
  key: string;
  messageId: string;
  value: string;
  notBefore: number;
  traceparent: string | null;
}

/**
 * The embedded streams' log: the messages of every stream not yet committed by their consumer
 * group. Each embedded stream has exactly one group, which the process owning the store runs: it
 * hands messages to its consumers from memory (src/streams/sqlite/sqlite-stream.ts), reads this table only
 * at start and for backlogs larger than it keeps in memory, and deletes a message once committed.
 * Seqs only go up (AUTOINCREMENT), so "every message up to seq N was read" stays true.
 */
export class StreamMessageStore {
  private readonly insertOne;
  private readonly after;
  private readonly ofKey;
  private readonly deleteOne;
  private readonly dueCount;

  constructor(
    db: Db,
    /**
     * The store's group commit: appends and commits of one turn of the event loop share ONE
     * transaction with the callbacks and attempt records of that turn (one WAL commit for all).
     */
    private readonly group: GroupCommit,
  ) {
    this.insertOne = db.prepare<[string, string, string, string, number, number, string | null]>(
      'INSERT INTO stream_messages (stream, key, message_id, value, not_before, created_at, traceparent) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.after = db.prepare<[string, number, number], StreamMessageRow>(
      'SELECT seq, stream, key, message_id, value, not_before, traceparent FROM stream_messages WHERE stream = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.ofKey = db.prepare<[string, string, number, number, number], StreamMessageRow>(
      `SELECT seq, stream, key, message_id, value, not_before, traceparent FROM stream_messages
       WHERE stream = ? AND key = ? AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?`,
    );
    this.deleteOne = db.prepare<[number]>('DELETE FROM stream_messages WHERE seq = ?');
    this.dueCount = db.prepare<[string, number], { n: number }>(
      'SELECT count(*) AS n FROM stream_messages WHERE stream = ? AND not_before <= ?',
    );
  }

  /** Appends the messages in the transaction open on this connection (the caller's); answers their seqs. */
  appendHere(stream: string, messages: readonly NewStreamMessage[], now: number): number[] {
    return messages.map((m) =>
      Number(this.insertOne.run(stream, m.key, m.messageId, m.value, m.notBefore, now, m.traceparent).lastInsertRowid),
    );
  }

  /**
   * `fn` (appends, with appendHere) in one unit of the shared transaction; resolves with its
   * answer once committed. `committed` gets the answer right after the COMMIT, in the order of the
   * transaction's units.
   */
  grouped<T>(fn: () => T, committed?: (value: T) => void): Promise<T> {
    return this.group.run(fn, committed);
  }

  /** Uncommitted messages of the stream after `seq`, oldest first. */
  readAfter(stream: string, seq: number, limit: number): StreamMessageRow[] {
    return this.after.all(stream, seq, limit);
  }

  /** Uncommitted messages of one key with `from` ≤ seq ≤ `through`, oldest first. */
  readKey(stream: string, key: string, from: number, through: number, limit: number): StreamMessageRow[] {
    return this.ofKey.all(stream, key, from, through, limit);
  }

  /** The group is done with the message: it leaves the log. */
  commit(seq: number): void {
    this.deleteOne.run(seq);
  }

  /** commit() in the transaction shared by this turn's appends and commits; resolves once committed. */
  commitGrouped(seq: number): Promise<void> {
    return this.group.runStatement(() => this.commit(seq));
  }

  /** Messages of the stream due and not committed. */
  lag(stream: string, now: number): number {
    return this.dueCount.get(stream, now)!.n;
  }
}
