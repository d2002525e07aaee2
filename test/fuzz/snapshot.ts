/**
 * A digest of the gateway's state, taken before and after a request to show it changed nothing: every
 * row of every table, and the files of the data dir.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestGateway } from '../helpers/gateway.js';
import type { FuzzWorld } from './fuzz-gateway.js';

/** A digest of every row of every table, and the files of the data dir beside the store. */
export function snapshot({ gw }: FuzzWorld): { store: string; files: string } {
  const db = gw.gateway.store.db;
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string }[];
  const hash = createHash('sha256');
  for (const { name } of tables) {
    hash.update(`\u0001${name}`);
    for (const row of db
      .prepare(`SELECT ${columnsOf(db, name)} FROM "${name}"`)
      .raw()
      .iterate())
      hash.update(
        JSON.stringify(row, (_k, v: unknown) =>
          typeof v === 'bigint' ? String(v) : Buffer.isBuffer(v) ? v.toString('hex') : v,
        ),
      );
  }
  return { store: hash.digest('hex'), files: listFiles(gw.dataDir).join('\n') };
}

/**
 * The columns a snapshot compares: all but a web session's idle end and an API token's last use,
 * which move on with use (at most once a minute) whatever the request asked for.
 */
function columnsOf(db: TestGateway['gateway']['store']['db'], table: string): string {
  const columns = (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map(
    (c) => c.name,
  );
  return columns
    .filter(
      (column) =>
        !(table === 'web_sessions' && column === 'expires_at') &&
        !(table === 'api_tokens' && column === 'last_used_at'),
    )
    .map((column) => `"${column}"`)
    .join(', ');
}

function listFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !/^gateway\.db(-wal|-shm|-journal)?$/.test(entry.name))
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}
