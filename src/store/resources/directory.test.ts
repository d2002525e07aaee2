import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDirectoryEntry, createAccount, revokeToken } from '../../domain/directory.js';
import { Store } from '../store.js';

let folder: string;
let store: Store;
beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'gateway-directory-'));
  store = Store.open(path.join(folder, 'gateway.db'), { shard: 1, slots: 64 });
});
afterEach(() => {
  store.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('the directory in a store', () => {
  it('records an account and its token for publishing in the transaction that makes them, then forgets them once published', () => {
    const account = store.transaction(() => createAccount(store, 'team', 'digest-1', 'gwk_prefix12', 5_000));
    expect(account).toEqual({ id: 2, name: 'team', created_at: 5_000 });
    const pending = store.directory.pending(10);
    expect(pending.map(({ key, value }) => ({ key, value: JSON.parse(value!) as unknown }))).toEqual([
      { key: 'account:2', value: { id: 2, name: 'team', created_at: 5_000 } },
      {
        key: 'token:2',
        value: {
          id: 2,
          account_id: 2,
          token_sha256: 'digest-1',
          created_at: 5_000,
          prefix: 'gwk_prefix12',
          revoked_at: null,
        },
      },
    ]);
    store.directory.published(pending[0]!.id);
    expect(store.directory.pending(10).map((row) => row.key)).toEqual(['token:2']);
    store.directory.published(pending[1]!.id);
    expect(store.directory.pending(10)).toEqual([]);
  });

  it('applies what other shards publish, idempotently; a revoked or removed token stops authenticating', () => {
    const entries: [string, unknown][] = [
      ['account:1', { id: 1, name: 'first', created_at: 1 }],
      [
        'token:1',
        { id: 1, account_id: 1, token_sha256: 'digest-a', created_at: 1, prefix: 'gwk_aaaaaaaa', revoked_at: null },
      ],
      ['account:1', { id: 1, name: 'first, renamed', created_at: 1 }],
      [
        'token:1',
        { id: 1, account_id: 1, token_sha256: 'digest-a', created_at: 1, prefix: 'gwk_aaaaaaaa', revoked_at: null },
      ],
      [
        'token:65',
        { id: 65, account_id: 1, token_sha256: 'digest-b', created_at: 2, prefix: 'gwk_bbbbbbbb', revoked_at: null },
      ],
      ['something:9', { from: 'a later version' }],
    ];
    store.transaction(() => entries.forEach(([key, value]) => applyDirectoryEntry(store, key, value)));
    expect(store.accounts.findByTokenDigest('digest-a')).toEqual({ id: 1, name: 'first, renamed', created_at: 1 });
    expect(store.accounts.count()).toBe(1);
    expect(store.directory.pending(10)).toEqual([]);

    // A revocation made on another shard: the token stops authenticating here, and stays listed.
    store.transaction(() =>
      applyDirectoryEntry(store, 'token:65', {
        id: 65,
        account_id: 1,
        token_sha256: 'digest-b',
        created_at: 2,
        prefix: 'gwk_bbbbbbbb',
        revoked_at: 9,
      }),
    );
    expect(store.accounts.findByTokenDigest('digest-b')).toBeUndefined();
    expect(store.accounts.findToken(65)).toMatchObject({ prefix: 'gwk_bbbbbbbb', revoked_at: 9 });

    store.transaction(() => applyDirectoryEntry(store, 'token:1', null));
    expect(store.accounts.findByTokenDigest('digest-a')).toBeUndefined();
  });
});

describe('a revocation', () => {
  it('is recorded for the directory with the token as the directory carries it', () => {
    store.transaction(() => createAccount(store, 'team', 'digest-1', 'gwk_prefix12', 5_000));
    store.directory.published(store.directory.pending(10).at(-1)!.id);
    const revoked = store.transaction(() => revokeToken(store, 2, 6_000));
    expect(revoked).toMatchObject({ id: 2, revoked_at: 6_000 });
    expect(
      store.directory.pending(10).map(({ key, value }) => ({ key, value: JSON.parse(value!) as unknown })),
    ).toEqual([
      {
        key: 'token:2',
        value: {
          id: 2,
          account_id: 2,
          token_sha256: 'digest-1',
          created_at: 5_000,
          prefix: 'gwk_prefix12',
          revoked_at: 6_000,
        },
      },
    ]);
    expect(store.transaction(() => revokeToken(store, 999, 6_000))).toBeUndefined();
    expect(store.directory.pending(10)).toHaveLength(1);
  });
});
