import path from 'node:path';
import { loadConfig, storePath } from '../config/config.js';
import { BackupError, backupStore, restoreStore } from '../store/engine/backup.js';

export const BACKUP_USAGE = `  gateway backup <file>                     copy the store of GATEWAY_DATA_DIR to <file>, consistent, while the daemon runs
  gateway restore <file>                    put the backup <file> in place as the store of GATEWAY_DATA_DIR (which has none)`;

/** `gateway backup <file>`: SQLite's online backup of the (running) daemon's store. */
export async function backupCommand(args: string[]): Promise<number> {
  const target = onlyFile('backup', args);
  if (target === null) return 2;
  const source = storePath(loadConfig());
  return reportingBackupErrors(async () => {
    const pages = await backupStore(source, path.resolve(target));
    process.stderr.write(`Backed up ${source} (${pages} pages) to ${path.resolve(target)}\n`);
  });
}

/** `gateway restore <file>`: a backup becomes the store of a data dir; `gateway serve` then serves it. */
export async function restoreCommand(args: string[]): Promise<number> {
  const source = onlyFile('restore', args);
  if (source === null) return 2;
  const target = storePath(loadConfig());
  return reportingBackupErrors(() => {
    restoreStore(path.resolve(source), target);
    process.stderr.write(`Restored ${path.resolve(source)} as ${target}; \`gateway serve\` serves it\n`);
    return Promise.resolve();
  });
}

function onlyFile(command: string, args: string[]): string | null {
  if (args.length !== 1 || args[0]!.startsWith('-') || args[0]!.trim() === '') {
    process.stderr.write(`gateway: ${command} needs one file name\n${BACKUP_USAGE}\n`);
    return null;
  }
  return args[0]!;
}

async function reportingBackupErrors(run: () => Promise<void>): Promise<number> {
  try {
    await run();
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    process.stderr.write(`gateway: ${error.message}\n`);
    return 1;
  }
}
