#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=50
// Entry point of the `gateway` command; runs the compiled CLI (built by `npm install` / `npm run build`).
// The daemon's V8 flags (docs/operations.md, "Memory") are on the first line, in `npm start` and in the Dockerfile.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('gateway: not built yet. Run `npm install` (or `npm run build`) in the checkout first.\n');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
