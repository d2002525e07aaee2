import type { Db } from '../engine/db.js';

export interface AccountRow {
  id: number;
  name: string;
  created_at: number;
}

/** Accounts and their API tokens. Tokens are stored as SHA-256 digests only. */
export class AccountStore {
  private readonly insertAccount;
  private readonly insertToken;
  private readonly byTokenDigest;
  private readonly countAll;

  constructor(db: Db) {
    this.insertAccount = db.prepare<[string, number], AccountRow>(
      'INSERT INTO accounts (name, created_at) VALUES (?, ?) RETURNING *',
    );
    this.insertToken = db.prepare<[number, string, number]>(
      'INSERT INTO api_tokens (account_id, token_sha256, created_at) VALUES (?, ?, ?)',
    );
    this.byTokenDigest = db.prepare<[string], AccountRow>(
      `SELECT accounts.* FROM api_tokens JOIN accounts ON accounts.id = api_tokens.account_id
       WHERE api_tokens.token_sha256 = ?`,
    );
    this.countAll = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM accounts');
  }

  /** Creates an account holding one token; the caller runs it inside a transaction. */
  createWithToken(name: string, tokenDigest: string, now = Date.now()): AccountRow {
    const account = this.insertAccount.get(name, now)!;
    this.insertToken.run(account.id, tokenDigest, now);
    return account;
  }

  findByTokenDigest(digest: string): AccountRow | undefined {
    return this.byTokenDigest.get(digest);
  }

  count(): number {
    return this.countAll.get()!.n;
  }
}
