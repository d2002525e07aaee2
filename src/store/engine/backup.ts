import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** SQLite's largest page count: one backup step copies the whole file inside one read transaction. */
const ALL_PAGES = 0x7fffffff;

/**
 * A consistent copy of the store file at `source` while its daemon keeps writing: SQLite's online
 * backup in one step, which reads one snapshot of the WAL database, so the copy is the store as of
 * one commit. It is written beside `target` and renamed into place once complete: a failed backup
 * leaves no file. Answers the number of pages copied.
 */
export async function backupStore(source: string, target: string): Promise<number> {
  if (!fs.existsSync(source)) throw new BackupError(`no store at ${source}`);
  if (fs.existsSync(target)) throw new BackupError(`${target} exists already: a backup never overwrites a file`);
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.partial-${process.pid}`);
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const { totalPages } = await db.backup(partial, { progress: () => ALL_PAGES });
    fs.renameSync(partial, target);
    return totalPages;
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Puts the backup at `source` in place as the store file `target` of a data dir that has none:
 * checked first (SQLite's integrity check), copied beside the target and renamed, so a failed
 * restore leaves no store behind.
 */
export function restoreStore(source: string, target: string): void {
  if (!fs.existsSync(source)) throw new BackupError(`no backup at ${source}`);
  if (fs.existsSync(target)) throw new BackupError(`${target} exists already: restore into a data dir without a store`);
  const check = new Database(source, { readonly: true, fileMustExist: true });
  try {
    const result = check.pragma('integrity_check', { simple: true });
    if (result !== 'ok') throw new BackupError(`${source} is not an intact store: ${String(result)}`);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${source} is not a store: ${(error as Error).message}`);
  } finally {
    check.close();
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.partial-${process.pid}`);
  try {
    fs.copyFileSync(source, partial);
    fs.renameSync(partial, target);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

/** A backup or restore that cannot go ahead, with the reason for the operator. */
export class BackupError extends Error {
  override name = 'BackupError';
}
