import type { Db } from '../engine/db.js';

export interface IdempotentAnswerRow {
  account_id: number;
  idempotency_key: string;
  fingerprint: string;
  status: number;
  /** The answer's JSON body, or null for an answer without one or a withheld one. */
  body: string | null;
  created_at: number;
  /** 1 when the answer carried a secret: its body was not stored, and a repeat is refused. */
  withheld: number;
}

export interface NewIdempotentAnswer {
  accountId: number;
  key: string;
  fingerprint: string;
  status: number;
  body: string | null;
  /** The answer carried a secret: `body` must be null, and a repeat is refused. */
  withheld?: boolean;
}

/** The first answers to API writes sent with an `Idempotency-Key`, per account. */
export class IdempotencyStore {
  private readonly findOne;
  private readonly saveOne;
  private readonly pruneSome;

  constructor(db: Db) {
    this.findOne = db.prepare<[number, string, number], IdempotentAnswerRow>(
      'SELECT * FROM idempotency_keys WHERE account_id = ? AND idempotency_key = ? AND created_at >= ?',
    );
    // A key older than the window is used afresh: its old answer is replaced.
    this.saveOne = db.prepare<[number, string, string, number, string | null, number, number]>(
      `INSERT OR REPLACE INTO idempotency_keys (account_id, idempotency_key, fingerprint, status, body, created_at, withheld)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.pruneSome = db.prepare<[number, number]>(
      `DELETE FROM idempotency_keys WHERE (account_id, idempotency_key) IN
         (SELECT account_id, idempotency_key FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?)`,
    );
  }

  /** The answer stored for the account's key, unless it was stored before `since`. */
  find(accountId: number, key: string, since: number): IdempotentAnswerRow | undefined {
    return this.findOne.get(accountId, key, since);
  }

  save(answer: NewIdempotentAnswer, now = Date.now()): void {
    if (answer.withheld === true && answer.body !== null) throw new Error('a withheld answer keeps no body');
    this.saveOne.run(
      answer.accountId,
      answer.key,
      answer.fingerprint,
      answer.status,
      answer.body,
      now,
      answer.withheld === true ? 1 : 0,
    );
  }

  /** Deletes up to `limit` answers stored before `before`; answers how many went. */
  pruneBefore(before: number, limit: number): number {
    return this.pruneSome.run(before, limit).changes;
  }
}
