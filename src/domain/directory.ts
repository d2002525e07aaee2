import type { AccountRow, ApiTokenRow } from '../store/resources/accounts.js';
import type { DirectoryAccount, DirectoryToken } from '../store/resources/directory.js';
import type { Store } from '../store/store.js';

/**
 * The directory: the accounts and API tokens every core of a cluster knows (docs/scaling.md). A
 * change is made in one core's store and recorded there in the same transaction; the directory
 * relay publishes it on the cluster's compacted directory topic, and every core's replica writes
 * it into its own store. Keys: `account:<id>` and `token:<id>`; a null value removes a token.
 */
export type DirectoryEntry =
  { key: `account:${number}`; value: DirectoryAccount } | { key: `token:${number}`; value: DirectoryToken | null };

/** Creates an account with one token, and records both for the directory; run inside a transaction. */
export function createAccount(
  store: Store,
  name: string,
  tokenDigest: string,
  prefix: string | null,
  now = Date.now(),
): AccountRow {
  const { account, token } = store.accounts.createWithTokenRow(name, tokenDigest, now, prefix);
  store.directory.record(`account:${account.id}`, account, now);
  store.directory.record(`token:${token.id}`, token, now);
  return account;
}

/**
 * Revokes a token and records the revocation for the directory (every shard refuses it then);
 * run inside a transaction. Undefined when there is no such token.
 */
export function revokeToken(store: Store, id: number, now = Date.now()): ApiTokenRow | undefined {
  const revoked = store.accounts.revokeToken(id, now);
  const entry = store.accounts.directoryEntryOf(id);
  if (entry !== undefined) store.directory.record(`token:${id}`, entry, now);
  return revoked;
}

/** Writes an entry another core published into this store. */
export function applyDirectoryEntry(store: Store, key: string, value: unknown): void {
  const [kind, id] = key.split(':');
  if (kind === 'account' && value !== null) store.directory.applyAccount(value as DirectoryAccount);
  else if (kind === 'token' && value !== null) store.directory.applyToken(value as DirectoryToken);
  else if (kind === 'token') store.directory.removeToken(Number(id));
}
