import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../engine/db.js';
import { DeliveryStore } from './deliveries.js';
import { MIGRATIONS, migrate, schemaVersion } from '../engine/migrate.js';

// Migration 15 rebuilds webhook_deliveries (seq as the rowid) and webhook_attempts (keyed by
// delivery and id): a store written at version 14 must come out with every row and link intact.
let dir: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-delivery-keys-'));
  db = openDatabase(path.join(dir, 'gateway.db'));
  migrate(
    db,
    MIGRATIONS.filter((m) => m.version <= 14),
  );
  const delivery = db.prepare(
    `INSERT INTO webhook_deliveries (id, seq, event_id, event_name, company_id, endpoint_id, event, status, attempt_count, next_attempt_at,
       last_status_code, last_error, created_at, updated_at, auto_attempts, traceparent, held_reason)
     VALUES (?, ?, ?, 'message.create', 7, 3, ?, ?, ?, ?, ?, ?, 1000, ?, ?, ?, ?)`,
  );
  delivery.run('dlv_a', 1, 'evt_a', '{"id":"evt_a"}', 'delivered', 1, null, 200, null, 1001, 1, '00-aa-bb-01', null);
  delivery.run('dlv_b', 2, 'evt_b', '{"id":"evt_b"}', 'pending', 1, 5000, 500, 'answered 500', 1002, 1, null, null);
  delivery.run('dlv_c', 5, 'evt_c', '{"id":"evt_c"}', 'pending', 0, null, null, null, 1003, 0, null, 'ordering');
  const attempt = db.prepare(
    `INSERT INTO webhook_attempts (id, delivery_id, number, trigger, started_at, duration_ms, status_code, response_body, error, outcome)
     VALUES (?, ?, 1, 'auto', ?, 4, ?, ?, ?, ?)`,
  );
  attempt.run('att_a', 'dlv_a', 1001, 200, 'ok', null, 'delivered');
  attempt.run('att_b', 'dlv_b', 1002, 500, 'no', 'answered 500', 'retry');
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const deliveries = () => db.prepare('SELECT * FROM webhook_deliveries ORDER BY seq').all();
const attempts = () => db.prepare('SELECT * FROM webhook_attempts ORDER BY id').all();

describe('migration 15: delivery seq as rowid, attempts keyed by delivery', () => {
  it('keeps every delivery and attempt, column for column, and their link', () => {
    const [rowsBefore, attemptsBefore] = [deliveries(), attempts()];
    expect(
      migrate(
        db,
        MIGRATIONS.filter((m) => m.version <= 15),
      ),
    ).toEqual([15]);
    expect(schemaVersion(db)).toBe(15);
    expect(deliveries()).toEqual(rowsBefore);
    expect(attempts()).toEqual(attemptsBefore);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const indexes = db
      .prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'webhook_deliveries' AND sql IS NOT NULL ORDER BY name",
      )
      .pluck()
      .all();
    expect(indexes).toEqual([
      'webhook_deliveries_company',
      'webhook_deliveries_due',
      'webhook_deliveries_held',
      'webhook_deliveries_status',
    ]);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE name LIKE '%_new'").all()).toEqual([]);
  });

  it('gives new deliveries the next seq, cascades a delivery to its attempts, and records an attempt once', () => {
    migrate(db);
    const store = new DeliveryStore(db);
    const [created] = store.createForEvent(
      { id: 'evt_d', name: 'message.create', company_id: 7 },
      [{ id: 3 }],
      2000,
      '{"id":"evt_d"}',
    );
    expect(db.prepare('SELECT seq FROM webhook_deliveries WHERE id = ?').pluck().get(created)).toBe(6);
    const record = {
      id: 'att_d',
      delivery_id: created!,
      company_id: 7,
      endpoint_id: 3,
      number: 1,
      step: 1,
      trigger: 'auto' as const,
      started_at: 2001,
      duration_ms: 3,
      status_code: 200,
      response_body: 'ok',
      error: null,
      outcome: 'delivered' as const,
      next_attempt_at: null,
    };
    db.transaction(() => store.applyAttempts([record, record], 2002, () => null))();
    expect(store.attempts(created!).map((a) => a.id)).toEqual(['att_d']);
    expect(store.find(created!)?.status).toBe('delivered');
    db.prepare("DELETE FROM webhook_deliveries WHERE id = 'dlv_b'").run();
    expect(attempts().map((a) => (a as { id: string }).id)).toEqual(['att_a', 'att_d']);
  });
});
