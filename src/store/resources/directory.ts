import type { Db } from '../engine/db.js';

/** One change of the directory waiting to be published: `value` is JSON, or null to remove the key. */
export interface DirectoryChangeRow {
  id: number;
  key: string;
  value: string | null;
  created_at: number;
}

/** An account as the directory carries it. */
export interface DirectoryAccount {
  id: number;
  name: string;
  created_at: number;
}

/** An API token as the directory carries it: its digest only, never the token. */
export interface DirectoryToken {
  id: number;
  account_id: number;
  token_sha256: string;
  created_at: number;
  /** The token's first characters, to tell it apart in a list; null for tokens made before they were kept. */
  prefix: string | null;
  /** When it was revoked; a revoked token authenticates nothing on any shard. */
  revoked_at: number | null;
}

/**
 * The directory's rows in a store: the changes this store made, until published, and the accounts
 * and tokens other processes made, written as they arrive. Applying is idempotent: the same entry
 * twice, or one this store made itself, changes nothing more.
 */
export class DirectoryStore {
  private readonly insertChange;
  private readonly pendingRows;
  private readonly deleteUpTo;
  private readonly upsertAccount;
  private readonly insertToken;
  private readonly deleteToken;

  constructor(db: Db) {
    this.insertChange = db.prepare<[string, string | null, number]>(
      'INSERT INTO directory_changes (key, value, created_at) VALUES (?, ?, ?)',
    );
    this.pendingRows = db.prepare<[number], DirectoryChangeRow>('SELECT * FROM directory_changes ORDER BY id LIMIT ?');
    this.deleteUpTo = db.prepare<[number]>('DELETE FROM directory_changes WHERE id <= ?');
    this.upsertAccount = db.prepare<DirectoryAccount>(
      'INSERT INTO accounts (id, name, created_at) VALUES (@id, @name, @created_at) ON CONFLICT (id) DO UPDATE SET name = excluded.name',
    );
    // A token already here under its id takes the revocation (the first one stays); one here under its
    // digest alone (the bootstrap token every shard wrote alike) stays as it is.
    this.insertToken = db.prepare<DirectoryToken>(
      `INSERT INTO api_tokens (id, account_id, token_sha256, created_at, prefix, revoked_at)
       VALUES (@id, @account_id, @token_sha256, @created_at, @prefix, @revoked_at)
       ON CONFLICT (id) DO UPDATE SET revoked_at = coalesce(api_tokens.revoked_at, excluded.revoked_at)
       ON CONFLICT DO NOTHING`,
    );
    this.deleteToken = db.prepare<[number]>('DELETE FROM api_tokens WHERE id = ?');
  }

  /** Records a change to publish; the caller runs it in the transaction that makes the change. */
  record(key: string, value: unknown, now = Date.now()): void {
    this.insertChange.run(key, value === null ? null : JSON.stringify(value), now);
  }

  /** The oldest changes not yet published, in the order they were made. */
  pending(limit: number): DirectoryChangeRow[] {
    return this.pendingRows.all(limit);
  }

  /** Forgets the changes published, up to and including `id`. */
  published(id: number): void {
    this.deleteUpTo.run(id);
  }

  applyAccount(account: DirectoryAccount): void {
    this.upsertAccount.run(account);
  }

  applyToken(token: DirectoryToken): void {
    this.insertToken.run(token);
  }

  removeToken(id: number): void {
    this.deleteToken.run(id);
  }
}
