import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/store/engine/db.js';
import { MIGRATIONS, migrate } from '../../src/store/engine/migrate.js';

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
    migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 4),
    );
    db.exec(`INSERT INTO accounts (id, name, created_at) VALUES (1, 'a', 0);
      INSERT INTO companies (id, account_id, name, created_at, updated_at) VALUES (1, 1, 'c', 0, 0);
      INSERT INTO channels (id, company_id, provider, state, created_at, updated_at) VALUES (1, 1, 'chat_b', 'enabled', 0, 0), (2, 1, 'chat_a', 'unconfirmed', 0, 0);`);
    expect(
      migrate(
        db,
        MIGRATIONS.filter((m) => m.version <= 4),
      ),
    ).toEqual([4]);
    const rows = db
      .prepare('SELECT channel_id, api, signing_secret, verify_token FROM channel_callbacks ORDER BY channel_id')
      .all() as { channel_id: number; api: string; signing_secret: string; verify_token: string }[];
    expect(rows.map((r) => [r.channel_id, r.api])).toEqual([
      [1, 'v2'],
      [2, 'v2'],
    ]);
    for (const row of rows) {
      expect(row.signing_secret).toMatch(/^[0-9a-f]{64}$/);
      expect(row.verify_token).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(rows[0]!.signing_secret).not.toBe(rows[1]!.signing_secret);
    const columns = (db.prepare('PRAGMA table_info(attachments)').all() as { name: string }[]).map((c) => c.name);
    expect(columns).toEqual(expect.arrayContaining(['origin', 'provider_media']));
  });
});

describe('migration 5 (retry schedule)', () => {
  it('counts the automatic attempts each delivery already had, so waiting retries go on at the right step', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-m5-'));
    db = openDatabase(path.join(dir, 'gateway.db'));
    migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 5),
    );
    db.exec(`INSERT INTO webhook_deliveries (id, seq, event_id, event_name, company_id, endpoint_id, event, status, attempt_count, next_attempt_at, created_at, updated_at)
        VALUES ('dlv_a', 1, 'evt_a', 'message.create', 1, 1, '{}', 'pending', 3, 5000, 0, 0), ('dlv_b', 2, 'evt_b', 'message.create', 1, 1, '{}', 'delivered', 1, NULL, 0, 0);
      INSERT INTO webhook_attempts (id, delivery_id, number, trigger, started_at, duration_ms, outcome) VALUES
        ('att_1', 'dlv_a', 1, 'auto', 1, 1, 'retry'), ('att_2', 'dlv_a', 2, 'manual', 2, 1, 'failed'), ('att_3', 'dlv_a', 3, 'auto', 3, 1, 'retry'),
        ('att_4', 'dlv_b', 1, 'auto', 4, 1, 'delivered');`);
    expect(
      migrate(
        db,
        MIGRATIONS.filter((m) => m.version <= 5),
      ),
    ).toEqual([5]);
    expect(db.prepare('SELECT id, auto_attempts, next_attempt_at FROM webhook_deliveries ORDER BY seq').all()).toEqual([
      { id: 'dlv_a', auto_attempts: 2, next_attempt_at: 5000 },
      { id: 'dlv_b', auto_attempts: 1, next_attempt_at: null },
    ]);
  });
});
