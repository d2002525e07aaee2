import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { loadConfig, storePath } from '../config/config.js';
import { companyExportLines } from '../domain/company-export.js';
import { Store } from '../store/store.js';
import { progressBar } from './progress.js';

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
    const progress = progressBar(process.stderr, 'lines');
    progress.start(exported.total, 0);
    for (const line of exported.lines) {
      if (!out.write(line)) await once(out, 'drain');
      progress.increment();
    }
    progress.stop();
    if (out !== process.stdout)
      await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    return 0;
  } finally {
    store.close();
  }
}
