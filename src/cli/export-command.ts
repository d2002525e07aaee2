import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { loadConfig, storePath } from '../config/config.js';
import { companyExportLines } from '../domain/company-export.js';
import { Store } from '../store/store.js';

export const EXPORT_USAGE = `  gateway export --company <id> [--output <file>]  the company's data as NDJSON to stdout or <file>; progress on stderr`;

/**
 * `gateway export --company <id>`: the company's data as NDJSON (src/domain/company-export.ts),
 * read from the store of GATEWAY_DATA_DIR (the daemon may be running: SQLite's WAL lets it read
 * beside it), written as fast as the output takes it, with a progress line on stderr.
 */
export async function exportCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { company: { type: 'string' }, output: { type: 'string' } } });
  const companyId = /^[1-9][0-9]{0,15}$/.test(values.company ?? '') ? Number(values.company) : NaN;
  if (!Number.isSafeInteger(companyId)) {
    process.stderr.write(`gateway: export needs --company <id>, a company id\n${EXPORT_USAGE}\n`);
    return 2;
  }
  const file = storePath(loadConfig());
  if (!fs.existsSync(file)) {
    process.stderr.write(`gateway: there is no store at ${file}\n`);
    return 1;
  }
  const store = Store.open(file);
  try {
    const exported = companyExportLines(store, companyId);
    if (exported === undefined) {
      process.stderr.write(`gateway: there is no company ${companyId}\n`);
      return 1;
    }
    const out = values.output === undefined ? process.stdout : fs.createWriteStream(path.resolve(values.output));
    const progress = progressLine(exported.total);
    let written = 0;
    for (const line of exported.lines) {
      if (!out.write(line)) await once(out, 'drain');
      progress(++written);
    }
    progress(written, true);
    if (out !== process.stdout)
      await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    return 0;
  } finally {
    store.close();
  }
}

/**
 * Draws `[#####.....] 512/1024 lines` on stderr, at most every 100 ms and once at the end; on a
 * terminal in place, elsewhere (a log) only the final line.
 */
function progressLine(total: number): (done: number, last?: boolean) => void {
  const tty = process.stderr.isTTY === true;
  let drawnAt = 0;
  return (done, last = false) => {
    const now = Date.now();
    if (!last && (!tty || now - drawnAt < 100)) return;
    drawnAt = now;
    const width = 30;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    const text = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} lines`;
    process.stderr.write(tty ? `\r${text}${last ? '\n' : ''}` : `${text}\n`);
  };
}
