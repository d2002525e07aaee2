// Scans the whole store and the attachments folder for texts that must be gone (test/lifecycle).
import fs from 'node:fs';
import path from 'node:path';
import type { Store } from '../../src/store/store.js';

/** Every place of the store (`table.column`, with the row's rowid when it has one) whose value contains one of `needles`. */
export function storeMentions(store: Store, needles: readonly string[]): string[] {
  const tables = store.db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all();
  const found: string[] = [];
  for (const { name } of tables) {
    const columns = store.db.prepare<[], { name: string }>(`PRAGMA table_info("${name}")`).all();
    for (const column of columns) {
      for (const needle of needles) {
        const hits = store.db
          .prepare<[string], { n: number }>(
            `SELECT count(*) AS n FROM "${name}" WHERE instr(CAST("${column.name}" AS TEXT), ?) > 0`,
          )
          .get(needle)!.n;
        if (hits > 0) found.push(`${name}.${column.name} (${hits}× ${JSON.stringify(needle)})`);
      }
    }
  }
  return found;
}

/** The names of the files in the data dir's attachments folder. */
export function attachmentFiles(dataDir: string): string[] {
  const folder = path.join(dataDir, 'attachments');
  return fs.existsSync(folder) ? fs.readdirSync(folder).sort() : [];
}
