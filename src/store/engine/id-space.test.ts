import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shardOfId } from '../../lib/shards.js';
import { Store } from '../store.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function openStore(shard: number, slots: number): Store {
  const folder = mkdtempSync(path.join(tmpdir(), 'gateway-id-space-'));
  folders.push(folder);
  return Store.open(path.join(folder, 'gateway.db'), { shard, slots });
}

function addCompanyWithChannel(store: Store, accountId: number): { company: number; channel: number } {
  const company = store.companies.insert({ accountId, name: 'c', phone: null, description: null, webhookUrl: null }).id;
  const channel = store.channels.insert({
    companyId: company,
    provider: 'chat_b',
    state: 'enabled',
    settings: {},
    credentials: {},
  }).id;
  return { company, channel };
}

describe('the ids a shard hands out (accounts, tokens, companies, channels)', () => {
  it('are 1, 2, 3 … in a single daemon', () => {
    const store = openStore(0, 1);
    const account = store.accounts.createWithToken('a', 'digest');
    expect(account.id).toBe(1);
    expect([1, 2, 3].map(() => addCompanyWithChannel(store, account.id))).toEqual([
      { company: 1, channel: 1 },
      { company: 2, channel: 2 },
      { company: 3, channel: 3 },
    ]);
    store.close();
  });

  it('are the shard’s own residue, so the shard is read back from the id', () => {
    const store = openStore(2, 64);
    const { account, token } = store.accounts.createWithTokenRow('a', 'digest');
    expect([account.id, token.id]).toEqual([3, 3]);
    const made = [1, 2, 3].map(() => addCompanyWithChannel(store, account.id));
    expect(made).toEqual([
      { company: 3, channel: 3 },
      { company: 67, channel: 67 },
      { company: 131, channel: 131 },
    ]);
    expect(made.flatMap(({ company, channel }) => [shardOfId(company, 64), shardOfId(channel, 64)])).toEqual([
      2, 2, 2, 2, 2, 2,
    ]);
    store.close();
  });
});
