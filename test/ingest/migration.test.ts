import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/store/db.js';
import { MIGRATIONS, migrate } from '../../src/store/migrate.js';

let dir: string | undefined;
let db: Db | undefined;
afterEach(() => {
  db?.close();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
});

describe('migration 4 (callbacks)', () => {
  it('gives channels created before it their own callback secrets, counted as v2', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-m4-'));
    db = openDatabase(path.join(dir, 'gateway.db'));
    migrate(db, MIGRATIONS.filter((m) => m.version < 4));
    db.exec(`INSERT INTO accounts (id, name, created_at) VALUES (1, 'a', 0);
      INSERT INTO companies (id, account_id, name, created_at, updated_at) VALUES (1, 1, 'c', 0, 0);
      INSERT INTO channels (id, company_id, provider, state, created_at, updated_at) VALUES (1, 1, 'chat_b', 'enabled', 0, 0), (2, 1, 'chat_a', 'unconfirmed', 0, 0);`);
    expect(migrate(db)).toEqual(MIGRATIONS.filter((m) => m.version >= 4).map((m) => m.version));
    const rows = db.prepare('SELECT channel_id, api, signing_secret, verify_token FROM channel_callbacks ORDER BY channel_id').all() as { channel_id: number; api: string; signing_secret: string; verify_token: string }[];
    expect(rows.map((r) => [r.channel_id, r.api])).toEqual([[1, 'v2'], [2, 'v2']]);
    for (const row of rows) {
      expect(row.signing_secret).toMatch(/^[0-9a-f]{64}$/);
      expect(row.verify_token).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(rows[0]!.signing_secret).not.toBe(rows[1]!.signing_secret);
    const columns = (db.prepare('PRAGMA table_info(attachments)').all() as { name: string }[]).map((c) => c.name);
    expect(columns).toEqual(expect.arrayContaining(['origin', 'provider_media']));
  });
});
