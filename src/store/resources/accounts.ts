import type { Db } from '../engine/db.js';
import type { DirectoryToken } from './directory.js';
import { nextIdSql, type IdSpace } from '../engine/id-space.js';

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

  constructor(db: Db, ids: IdSpace) {
    this.insertAccount = db.prepare<[string, number], AccountRow>(
      `INSERT INTO accounts (id, name, created_at) VALUES (${nextIdSql('accounts', ids)}, ?, ?) RETURNING *`,
    );
    this.insertToken = db.prepare<[number, string, number], DirectoryToken>(
      `INSERT INTO api_tokens (id, account_id, token_sha256, created_at) VALUES (${nextIdSql('api_tokens', ids)}, ?, ?, ?) RETURNING *`,
    );
    this.byTokenDigest = db.prepare<[string], AccountRow>(
      `SELECT accounts.* FROM api_tokens JOIN accounts ON accounts.id = api_tokens.account_id
       WHERE api_tokens.token_sha256 = ?`,
    );
    this.countAll = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM accounts');
  }

  /** Creates an account holding one token; the caller runs it inside a transaction. */
  createWithToken(name: string, tokenDigest: string, now = Date.now()): AccountRow {
    return this.createWithTokenRow(name, tokenDigest, now).account;
  }

  /** createWithToken, answering the token's row too (its id and digest, what the directory carries). */
  createWithTokenRow(name: string, tokenDigest: string, now = Date.now()): { account: AccountRow; token: DirectoryToken } {
    const account = this.insertAccount.get(name, now)!;
    return { account, token: this.insertToken.get(account.id, tokenDigest, now)! };
  }

  findByTokenDigest(digest: string): AccountRow | undefined {
    return this.byTokenDigest.get(digest);
  }

  count(): number {
    return this.countAll.get()!.n;
  }
}
