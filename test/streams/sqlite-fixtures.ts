// Helpers of the embedded (SQLite) stream tests (sqlite-log.test.ts, sqlite-recoverable.test.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { Store } from '../../src/store/store.js';

/**
 * Answers a maker of store file paths, each in a fresh temp dir that is removed after the test;
 * call it at the top of a test file, whose afterEach it registers.
 */
export function storeFilesPerTest(): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-streams-'));
    dirs.push(dir);
    return path.join(dir, 'gateway.db');
  };
}

/** Polls until `condition` holds; fails with `what` after `ms`. */
export async function until(what: string, condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The message ids in the log, in seq order. */
export const storedIds = (store: Store) =>
  store.db
    .prepare<[], { message_id: string }>('SELECT message_id FROM stream_messages ORDER BY seq')
    .all()
    .map((r) => r.message_id);
