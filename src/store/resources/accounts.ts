import type { Db } from '../engine/db.js';
import type { DirectoryToken } from './directory.js';
import { nextIdSql, type IdSpace } from '../engine/id-space.js';

export interface AccountRow {
  id: number;
  name: string;
  created_at: number;
}

/** An API token as listed: never the token, only its id, its prefix and its dates. */
export interface ApiTokenRow {
  id: number;
  account_id: number;
  account_name: string;
  /** The token's first characters (`gwk_` and 8 more); null for tokens made before they were kept. */
  prefix: string | null;
  created_at: number;
  /** The last authenticated request, written at most once a minute (src/http/token-use.ts). */
  last_used_at: number | null;
  revoked_at: number | null;
}

/** The account of a live token, and the token's id and last recorded use. */
export interface AuthenticatedToken {
  account: AccountRow;
  tokenId: number;
  lastUsedAt: number | null;
}

/** How much of a token is kept to recognise it in a list: `gwk_` and 8 of its random characters. */
export const TOKEN_PREFIX_LENGTH = 12;

/**
 * Accounts and their API tokens. Tokens are stored as SHA-256 digests only, with their first
 * TOKEN_PREFIX_LENGTH characters to tell them apart in a list. A revoked token stays listed and
 * authenticates nothing.
 */
export class AccountStore {
  private readonly insertAccount;
  private readonly insertToken;
  private readonly byTokenDigest;
  private readonly countAll;
  private readonly tokens;
  private readonly tokensOfAccount;
  private readonly tokenById;
  private readonly revokeOne;
  private readonly touchOne;
  private readonly directoryToken;

  constructor(db: Db, ids: IdSpace) {
    this.insertAccount = db.prepare<[string, number], AccountRow>(
      `INSERT INTO accounts (id, name, created_at) VALUES (${nextIdSql('accounts', ids)}, ?, ?) RETURNING *`,
    );
    this.insertToken = db.prepare<[number, string, number, string | null], DirectoryToken>(
      `INSERT INTO api_tokens (id, account_id, token_sha256, created_at, prefix) VALUES (${nextIdSql('api_tokens', ids)}, ?, ?, ?, ?)
       RETURNING id, account_id, token_sha256, created_at, prefix, revoked_at`,
    );
    this.byTokenDigest = db.prepare<[string], AccountRow & { token_id: number; last_used_at: number | null }>(
      `SELECT accounts.*, api_tokens.id AS token_id, api_tokens.last_used_at FROM api_tokens JOIN accounts ON accounts.id = api_tokens.account_id
       WHERE api_tokens.token_sha256 = ? AND api_tokens.revoked_at IS NULL`,
    );
    this.countAll = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM accounts');
    const listed = `SELECT api_tokens.id, api_tokens.account_id, accounts.name AS account_name, api_tokens.prefix,
         api_tokens.created_at, api_tokens.last_used_at, api_tokens.revoked_at
       FROM api_tokens JOIN accounts ON accounts.id = api_tokens.account_id`;
    this.tokens = db.prepare<[], ApiTokenRow>(`${listed} ORDER BY api_tokens.id`);
    this.tokensOfAccount = db.prepare<[number], ApiTokenRow>(
      `${listed} WHERE api_tokens.account_id = ? ORDER BY api_tokens.id`,
    );
    this.tokenById = db.prepare<[number], ApiTokenRow>(`${listed} WHERE api_tokens.id = ?`);
    this.directoryToken = db.prepare<[number], DirectoryToken>(
      'SELECT id, account_id, token_sha256, created_at, prefix, revoked_at FROM api_tokens WHERE id = ?',
    );
    this.revokeOne = db.prepare<[number, number]>(
      'UPDATE api_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?',
    );
    this.touchOne = db.prepare<[number, number]>(
      'UPDATE api_tokens SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?',
    );
  }

  /**
   * Creates an account holding one token, by its digest and its prefix (tokenPrefix: null shows
   * nothing of it); the caller runs it inside a transaction.
   */
  createWithToken(name: string, tokenDigest: string, now = Date.now(), prefix: string | null = null): AccountRow {
    return this.createWithTokenRow(name, tokenDigest, now, prefix).account;
  }

  /** createWithToken, answering the token's row too (what the directory carries: never the token). */
  createWithTokenRow(
    name: string,
    tokenDigest: string,
    now = Date.now(),
    prefix: string | null = null,
  ): { account: AccountRow; token: DirectoryToken } {
    const account = this.insertAccount.get(name, now)!;
    return { account, token: this.insertToken.get(account.id, tokenDigest, now, prefix)! };
  }

  /** The account of a live (not revoked) token, by its digest. */
  findByTokenDigest(digest: string): AccountRow | undefined {
    return this.authenticate(digest)?.account;
  }

  /** The account of a live (not revoked) token, with the token's id and last recorded use. */
  authenticate(digest: string): AuthenticatedToken | undefined {
    const row = this.byTokenDigest.get(digest);
    if (row === undefined) return undefined;
    const { token_id: tokenId, last_used_at: lastUsedAt, ...account } = row;
    return { account, tokenId, lastUsedAt };
  }

  /** Every token, or one account's, oldest first. */
  listTokens(accountId?: number): ApiTokenRow[] {
    return accountId === undefined ? this.tokens.all() : this.tokensOfAccount.all(accountId);
  }

  findToken(id: number): ApiTokenRow | undefined {
    return this.tokenById.get(id);
  }

  /** A token as the directory carries it (its digest, never the token). */
  directoryEntryOf(id: number): DirectoryToken | undefined {
    return this.directoryToken.get(id);
  }

  /** Revokes a token (once: a second revocation keeps the first time); undefined when there is no such token. */
  revokeToken(id: number, now = Date.now()): ApiTokenRow | undefined {
    this.revokeOne.run(now, id);
    return this.tokenById.get(id);
  }

  /** Records the last use of tokens; a time earlier than the one recorded changes nothing. */
  touchTokens(uses: ReadonlyMap<number, number>): void {
    for (const [id, at] of uses) this.touchOne.run(at, id);
  }

  count(): number {
    return this.countAll.get()!.n;
  }
}
